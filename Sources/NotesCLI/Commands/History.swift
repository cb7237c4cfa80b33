import ArgumentParser
import Foundation
import NotesCore
import NotesStore

/// A duration such as `30m`, `12h`, `1d`, `2w` or `180d`, in seconds.
struct Age: ExpressibleByArgument {
    let seconds: Double

    init?(argument: String) {
        let units: [Character: Double] = [
            "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800, "y": 31_536_000,
        ]
        guard let unit = argument.last, let factor = units[unit],
            let n = Double(argument.dropLast()), n >= 0
        else { return nil }
        seconds = n * factor
    }
}

/// Colours a unified diff for a terminal.
func coloredDiff(_ diff: String) -> String {
    guard Terminal.color else { return diff }
    return diff.lines().map { line in
        if line.hasPrefix("+++") || line.hasPrefix("---") {
            return Terminal.style(String(line), .bold)
        }
        if line.hasPrefix("+") { return Terminal.style(String(line), .green) }
        if line.hasPrefix("-") { return Terminal.style(String(line), .red) }
        if line.hasPrefix("@@") { return Terminal.style(String(line), .cyan) }
        return String(line)
    }.joined(separator: "\n")
}

extension NotesCommand {
    /// `notes history PATH`.
    struct History: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract:
                "List the versions of a file: who changed it, when, with which client and operation."
        )

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(
            help: "The file (it may have been deleted or moved).", completion: Completion.paths)
        var path: String
        @Flag(name: .long, help: "Print the records as JSON.") var json = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let base = workspace.pathBase(ws)
            let relative = try base.resolve(path).relative
            let records = store.history.history(of: relative).records
            if records.isEmpty && !FileSystem.exists(ws.absolutePath(relative)) {
                throw NotesError(
                    .notFound, "\(base.display(relative)) does not exist and has no history",
                    hint: "check the path; `notes list` shows the files")
            }
            if json {
                return Terminal.write(
                    try JSONOutput.document(
                        records.map {
                            ShownRecord(
                                base.display($0), restorable: $0.after.map(store.history.hasObject))
                        }))
            }
            guard !records.isEmpty else {
                return Terminal.write(
                    "\(base.display(relative)): no history yet (only changes made through notes, or noticed by it, are recorded)\n"
                )
            }
            let current = FileManager.default.contents(atPath: ws.absolutePath(relative)).map {
                ContentVersion(of: Array($0)).short
            }
            // The newest row holding the file's bytes now is the current one (an older row
            // of the same version is one the file later came back to).
            var currentShown = false
            for record in records.reversed() {
                let version = record.after ?? "(deleted)"
                var line =
                    "\(Terminal.style(version, .yellow))  \(record.time)  \(record.actor.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0))  \(record.operation.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  \(record.client)"
                if record.operation == .move, let to = record.to {
                    line += "  \(base.display(record.path)) → \(base.display(to))"
                }
                if let proposal = record.proposal { line += "  proposal \(proposal)" }
                if record.after != nil && record.after == current {
                    if !currentShown { line += Terminal.style("  ← current", .green) }
                    currentShown = true
                } else if let after = record.after, !store.history.hasObject(after) {
                    // Only gc removes versions on purpose; any other absence is damage.
                    line += Terminal.style(
                        store.history.isOlderThanLastGC(record)
                            ? "  (no stored copy, removed by `notes gc`: cannot be restored)"
                            : "  (stored copy missing or damaged: cannot be restored; `notes index --check` lists it)",
                        .dim)
                }
                Terminal.write(line + "\n")
            }
            if let current, records.last?.after != current {
                Terminal.write(
                    Terminal.style(
                        "\(current)  edited outside notes since the last recorded change\n", .dim))
            }
        }
    }

    /// `notes diff PATH [V1] [V2]`.
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract:
                "Show what changed in a file between two versions (default: the previous version and the file now).",
            discussion: """
                  notes diff notes.md                 previous version → now
                  notes diff notes.md 3f2a9c0d1e2b4a5f  that version → now
                  notes diff notes.md V1 V2           V1 → V2
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file.", completion: Completion.paths) var path: String
        @Argument(
            help: "The old version (default: the one before the last change).",
            completion: Completion.versions) var from: String?
        @Argument(
            help: "The new version (default: the file as it is now).",
            completion: Completion.versions) var to: String?
        @Flag(name: .long, help: "Print path, from, to and the unified diff as JSON.") var json =
            false

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let base = workspace.pathBase(ws)
            let relative = try base.resolve(path)
            let shown = base.display(relative.relative)
            let nowBytes =
                (try? FileBytes.read(
                    path: ws.absolutePath(relative.relative), maxBytes: Workspace.pagedReadMaxBytes))
            let nowVersion = nowBytes.map { ContentVersion(of: $0).short }
            func bytes(_ version: String) throws -> [UInt8] {
                if version == nowVersion, let nowBytes { return nowBytes }
                guard let stored = store.history.object(version) else {
                    throw NotesError(
                        .notFound, "version \(version) of \(shown) is not in the history",
                        hint: "see `notes history \(shown)`")
                }
                return stored
            }
            let old = try from ?? store.previousVersion(of: relative, current: nowVersion)
            let oldBytes = try bytes(old)
            let newBytes = try to.map(bytes) ?? nowBytes ?? []
            let diff = LineDiff.unified(
                oldBytes, newBytes, oldLabel: "\(shown)@\(old)",
                newLabel: "\(shown)@\(to ?? nowVersion ?? "deleted")")
            if json {
                struct Output: Encodable {
                    var path: String, from: String, to: String?, diff: String
                }
                return Terminal.write(
                    try JSONOutput.document(
                        Output(path: shown, from: old, to: to ?? nowVersion, diff: diff)))
            }
            Terminal.write(
                diff.isEmpty
                    ? "no differences\n" : coloredDiff(diff) + (diff.hasSuffix("\n") ? "" : "\n"))
        }
    }

    /// `notes log [PATH]`.
    struct Log: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "log",
            abstract:
                "Show the change log: every write, append, edit, delete, move and restore, by whom.",
            discussion: """
                  notes log --actor agent --since 1d
                  notes log Research/moby-dick/introduction.md
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "Only changes to this file.", completion: Completion.paths) var path:
            String?
        @Option(name: .long, help: "Only changes by this actor (agent or user).") var actor: Actor?
        @Option(
            name: .long,
            help: ArgumentHelp("Only changes newer than this (30m, 12h, 1d, 2w).", valueName: "age")
        ) var since: Age?
        @Option(name: .long, help: "Show at most this many (newest first).") var limit: Int = 50
        @Flag(name: .long, help: "Print one JSON object per change.") var jsonl = false
        @Flag(name: .long, help: "Print the changes as one JSON document: {\"changes\": […]}.")
        var json = false

        func validate() throws {
            if json && jsonl {
                throw ValidationError(
                    "--json and --jsonl cannot be combined (choose one output format)")
            }
            if limit < 0 { throw ValidationError("--limit must be 0 or more") }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let base = workspace.pathBase(ws)
            var records = store.history.records()
            if let path {
                records = store.history.history(of: try base.resolve(path).relative).records
            }
            if let actor { records = records.filter { $0.actor == actor } }
            if let since {
                let cutoff = Timestamp.now() - since.seconds
                records = records.filter { (Timestamp.parse($0.time) ?? 0) >= cutoff }
            }
            records = records.map { base.display($0) }
            if json {
                struct Output: Encodable { var changes: [ChangeRecord] }
                return Terminal.write(
                    try JSONOutput.document(
                        Output(changes: Array(records.reversed().prefix(limit)))))
            }
            for record in records.reversed().prefix(max(0, limit)) {
                if jsonl {
                    Terminal.write(try JSONOutput.line(record))
                    continue
                }
                var line =
                    "\(record.time)  \(record.actor.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0))  \(record.operation.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  \(record.path)"
                if let to = record.to { line += " → \(to)" }
                line += Terminal.style(
                    "  \(record.client)  \(record.before ?? "new") → \(record.after ?? "deleted")",
                    .dim)
                Terminal.write(line + "\n")
            }
        }
    }

    /// `notes gc --older-than AGE`.
    struct GarbageCollect: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gc",
            abstract:
                "Free space by dropping history versions older than an age (the only way history shrinks).",
            discussion: """
                Versions still referenced by a change newer than the age, every file's current
                version, and proposals' bases are kept. The log itself is kept whole.
                On a terminal it asks before removing anything (-y does not ask); --dry-run
                says what would go and removes nothing. `notes history` marks removed versions.

                  notes gc --older-than 180d
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Option(
            name: .long,
            help: ArgumentHelp("Drop versions older than this (e.g. 180d).", valueName: "age"))
        var olderThan: Age
        @Flag(name: .long, help: "Only say what would be removed; remove nothing.") var dryRun =
            false
        @Flag(name: [.short, .long], help: "Do not ask on a terminal.") var yes = false
        @Flag(name: .long, help: "Print the result as JSON.") var json = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let cutoff = Timestamp.now() - olderThan.seconds
            // What is removed cannot be restored: a person at a terminal is asked first.
            let asks = !dryRun && !yes && !json && isatty(STDIN_FILENO) == 1 && Terminal.stderrIsTTY
            if asks {
                let plan = try store.pruneHistory(before: cutoff, dryRun: true)
                guard plan.objects > 0 else { return Terminal.write("nothing to remove\n") }
                StandardStreams.writeError(
                    "notes: remove \(grouped(plan.objects)) old versions (\(humanSize(plan.bytes)))? `notes restore` cannot bring them back [y/N] "
                )
                let answer = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
                guard answer == "y" || answer == "yes" else {
                    StandardStreams.writeError("notes: nothing was removed\n")
                    throw ExitCode(1)
                }
            }
            let freed = try store.pruneHistory(before: cutoff, dryRun: dryRun)
            if json {
                struct Report: Encodable {
                    var objects: Int
                    var bytes: Int
                    var dryRun: Bool
                    enum CodingKeys: String, CodingKey { case objects, bytes, dryRun = "dry_run" }
                }
                return Terminal.write(
                    try JSONOutput.document(
                        Report(objects: freed.objects, bytes: freed.bytes, dryRun: dryRun)))
            }
            if dryRun {
                return Terminal.write(
                    "would remove \(grouped(freed.objects)) old versions, freeing \(humanSize(freed.bytes)) (nothing was removed)\n"
                )
            }
            Terminal.write(
                "removed \(grouped(freed.objects)) old versions, freed \(humanSize(freed.bytes))\n")
        }
    }
}

extension Actor: ExpressibleByArgument {}

/// A history record as `notes history --json` prints it: `restorable` is false for a
/// version whose stored copy `notes gc` removed.
struct ShownRecord: Encodable {
    var record: ChangeRecord
    var restorable: Bool?

    init(_ record: ChangeRecord, restorable: Bool?) {
        self.record = record
        self.restorable = restorable
    }

    enum Key: String, CodingKey { case restorable }

    func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(restorable, forKey: .restorable)
    }
}

extension PathBase {
    /// A change record with its paths as printed.
    func display(_ record: ChangeRecord) -> ChangeRecord {
        var shown = record
        shown.path = display(record.path)
        shown.to = display(record.to)
        return shown
    }
}
