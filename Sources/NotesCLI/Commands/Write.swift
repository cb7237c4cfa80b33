import ArgumentParser
import Foundation
import NotesCore
import NotesStore

/// Options of the person's write commands (docs/spec.md §6.6): they act as `user`.
struct ChangeOutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the result (path, version, previous_version, diff…) as JSON.")
    var json = false
    @Flag(name: .long, help: "Print the diff of the change.") var diff = false
}

extension WorkspaceOptions {
    /// The store of the workspace and `raw` (as the person typed it) made workspace-relative.
    func openStore(path raw: String) throws -> (NoteStore, String) {
        let ws = try openWorkspace()
        return (NoteStore(workspace: ws), try resolveForWrite(raw, in: ws))
    }

    /// ``resolve(_:in:)`` as a string, for paths that may not exist yet.
    func resolveForWrite(_ raw: String, in workspace: Workspace) throws -> String {
        try resolve(raw, in: workspace).relative
    }
}

/// Prints the outcome of a change for the person.
enum ChangeRenderer {
    static func render(
        _ result: ChangeResult, verb: String, options: ChangeOutputOptions, base: PathBase
    ) throws {
        var result = result
        result.path = base.display(result.path)
        result.from = base.display(result.from)
        if options.json { return Terminal.write(try JSONOutput.document(result)) }
        var line: String
        if let proposal = result.proposal, !result.changed {
            line = "\(result.path): proposal \(proposal)"
        } else if !result.changed {
            line = "\(result.path) unchanged (version \(result.version ?? "-"))"
        } else {
            line = "\(verb) \(result.from.map { "\($0) → " } ?? "")\(result.path)"
            if let version = result.version { line += Terminal.style("  version \(version)", .dim) }
            if result.created { line += Terminal.style("  (new)", .dim) }
            if result.merged { line += Terminal.style("  (merged)", .dim) }
            if let restorable = result.restorableVersion {
                line += Terminal.style(
                    "  restore with: notes restore \(result.path) --version \(restorable)", .dim)
            }
        }
        Terminal.write(line + "\n")
        if options.diff, let diff = result.diff { Terminal.write(diff) }
        for warning in result.warnings {
            StandardStreams.writeError("notes: \(PersonWording.forPerson(warning))\n")
        }
    }
}

/// Reads standard input as UTF-8 text.
func readStandardInput() throws -> String {
    let data = FileHandle.standardInput.readDataToEndOfFile()
    guard let text = String(data: data, encoding: .utf8) else {
        throw NotesError(
            .notText, "standard input is not UTF-8 text", hint: "convert it to UTF-8 first")
    }
    return text
}

/// The bytes of the file `path` names, read to its end: a regular file, or a pipe or device
/// such as `/dev/null` or a shell's `<(…)`.
func readWhole(_ path: String) throws -> Data {
    let cannot = NotesError(
        .notFound, "cannot read \(path)", hint: "check the path given to --from")
    guard !FileSystem.isDirectory(path), let handle = FileHandle(forReadingAtPath: path) else {
        throw cannot
    }
    defer { try? handle.close() }
    do { return try handle.readToEnd() ?? Data() } catch { throw cannot }
}

extension NotesCommand {
    /// `notes write PATH`: replace or create a file from stdin or --from.
    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write",
            abstract: "Create or replace a file with text from standard input or --from.",
            discussion: """
                The write is atomic, stamps provenance (last_modified_by: user) in
                Markdown front matter without touching other keys, and keeps the previous
                version in history (`notes restore` undoes it). --expected-version makes
                it a compare-and-swap.

                  echo "# Ideas" | notes write Research/ideas.md
                  notes write Research/ideas.md --from ~/draft.md
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(
            help: "The file to write (created with its folders if missing).",
            completion: Completion.paths) var path: String
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Read the text from this file instead of standard input.", valueName: "file"),
            completion: .file())
        var from: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Fail with stale_version unless the file is at this version.", valueName: "version")
        ) var expectedVersion: String?
        @OptionGroup var output: ChangeOutputOptions

        func run() throws {
            let (store, relative) = try workspace.openStore(path: path)
            let content: String
            if let from {
                let data = try readWhole(from)
                guard let text = String(data: data, encoding: .utf8) else {
                    throw NotesError(
                        .notText, "\(from) is not UTF-8 text", hint: "convert it to UTF-8 first")
                }
                content = text
            } else {
                if isatty(STDIN_FILENO) == 1 {
                    StandardStreams.writeError(
                        "notes: reading the new text from standard input (end with Ctrl-D)\n")
                }
                content = try readStandardInput()
                guard !content.isEmpty else {
                    throw NotesError(
                        .invalidArgument, "nothing on standard input; the file was not changed",
                        hint: "pipe the new text in, or use --from /dev/null to empty the file")
                }
            }
            var options = ChangeOptions(
                expectedVersion: expectedVersion, includeDiff: output.diff)
            options.keepFrontMatter = true
            let result = try store.write(relative, content: content, options: options, by: .person)
            try ChangeRenderer.render(
                result, verb: result.created ? "created" : "wrote", options: output,
                base: workspace.pathBase(store.workspace))
        }
    }

    /// `notes append PATH [TEXT]`: add text at the end (or under a heading).
    struct Append: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "append",
            abstract: "Append text (the arguments, or standard input) to a file.",
            discussion: """
                Line endings follow the file's own. With --section the text goes at the end of
                that heading's section, which is created when missing.

                  notes append Research/ideas.md "Look at the Essex logbook."
                  notes append context.md "- prefers primary sources" --section Learned
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to append to (created if missing).", completion: Completion.paths)
        var path: String
        @Argument(help: "The text; standard input when omitted.") var text: [String] = []
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Append at the end of the section under this heading.", valueName: "heading"))
        var section: String?
        @OptionGroup var output: ChangeOutputOptions

        func run() throws {
            let (store, relative) = try workspace.openStore(path: path)
            let content = text.isEmpty ? try readStandardInput() : text.joined(separator: " ")
            guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw NotesError(
                    .invalidArgument, "nothing to append",
                    hint: "give the text as arguments or on standard input")
            }
            let result = try store.append(
                relative, content: content, section: section, includeDiff: output.diff, by: .person)
            try ChangeRenderer.render(
                result, verb: "appended to", options: output,
                base: workspace.pathBase(store.workspace))
        }
    }

    /// `notes rm PATH`: delete, restorable from history.
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rm",
            abstract:
                "Delete a file (its last version stays in history: `notes restore PATH` brings it back)."
        )

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to delete.", completion: Completion.paths) var path: String
        @Option(
            name: .long,
            help: ArgumentHelp("Fail unless the file is at this version.", valueName: "version"))
        var expectedVersion: String?
        @OptionGroup var output: ChangeOutputOptions

        func run() throws {
            let (store, relative) = try workspace.openStore(path: path)
            let result = try store.delete(
                relative,
                options: ChangeOptions(expectedVersion: expectedVersion, includeDiff: output.diff),
                by: .person)
            try ChangeRenderer.render(
                result, verb: "deleted", options: output, base: workspace.pathBase(store.workspace))
        }
    }

    /// `notes mv FROM TO`.
    struct Move: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "mv",
            abstract: "Rename or move a file inside the workspace (history follows it).")

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to move.", completion: Completion.paths) var from: String
        @Argument(
            help: "Its new path (must not exist), or a folder to move it into (like mv).",
            completion: Completion.paths) var to: String
        @OptionGroup var output: ChangeOutputOptions

        func run() throws {
            let (store, source) = try workspace.openStore(path: from)
            var target = try workspace.resolveForWrite(to, in: store.workspace)
            // A folder (existing, or written with a final "/") receives the file, as in mv(1).
            if to.hasSuffix("/") || target.isEmpty
                || FileSystem.isDirectory(store.workspace.absolutePath(target))
            {
                let name = (source as NSString).lastPathComponent
                target = target.isEmpty ? name : target + "/" + name
            }
            let base = workspace.pathBase(store.workspace)
            let result: ChangeResult
            do {
                result = try store.move(source, to: target, by: .person)
            } catch {
                // The paths as the person typed them: from the current folder.
                var shown = error
                let paths = [target: base.display(target), source: base.display(source)]
                shown.message = shown.message.split(
                    separator: " ", omittingEmptySubsequences: false
                )
                .map { paths[String($0)] ?? String($0) }.joined(separator: " ")
                throw shown
            }
            try ChangeRenderer.render(result, verb: "moved", options: output, base: base)
        }
    }

    /// `notes restore PATH [--version V]`.
    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Bring back an earlier version of a file, or a deleted file.",
            discussion: """
                Without --version: the version before the last change (or the deleted file).
                A restore is itself a change, so it can be undone the same way.

                  notes history Research/ideas.md
                  notes restore Research/ideas.md --version 3f2a9c0d1e2b4a5f
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to restore.", completion: Completion.paths) var path: String
        @Option(
            name: .long,
            help: ArgumentHelp(
                "The version to bring back (see `notes history`).", valueName: "version"),
            completion: Completion.versions)
        var version: String?
        @OptionGroup var output: ChangeOutputOptions

        func run() throws {
            let (store, relative) = try workspace.openStore(path: path)
            let result = try store.restore(
                relative, version: version, options: ChangeOptions(includeDiff: output.diff),
                by: .person)
            try ChangeRenderer.render(
                result, verb: "restored", options: output, base: workspace.pathBase(store.workspace)
            )
        }
    }
}
