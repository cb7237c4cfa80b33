import ArgumentParser
import Foundation
import NotesCore
import NotesStore

extension NotesCommand {
    /// `notes edit PATH`: the person's edit in `$EDITOR`, recorded as theirs (docs/spec.md §6.6).
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract:
                "Edit a file in $EDITOR (or replace exact text with --old/--new) as your change.",
            discussion: """
                The file is copied to a temporary file for the editor; when you save and quit,
                the result is written atomically with provenance and history. If the agent
                changed the file meanwhile, the two are merged. If the save fails for any
                reason (the editor exits with an error, a full or read-only disk, the workspace
                lock held too long, a collision), nothing is written and your edited copy is
                kept in .notes/recovery/; `notes edit PATH --resume` saves it later with the
                same rules. If it collides again, the kept copy gets both versions of each
                place between conflict markers; edit it, then --resume saves it.

                  notes edit Research/moby-dick/introduction.md
                  notes edit Research/moby-dick/introduction.md --resume
                  notes edit notes.md --old "Captain Ahab" --new "Ahab"
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to edit (created when missing).", completion: Completion.paths)
        var path: String
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Exact text to replace (repeatable, paired with --new).", valueName: "text"))
        var old: [String] = []
        @Option(
            name: .long,
            help: ArgumentHelp("Replacement text for the matching --old.", valueName: "text"))
        var new: [String] = []
        @Flag(
            name: .long,
            help:
                "Save the edit a failed save kept (.notes/recovery/), merged with any change made since."
        ) var resume = false
        @Option(
            name: .long,
            help: ArgumentHelp(
                "With --resume: the kept copy to save, when it was left outside the workspace.",
                valueName: "file"), completion: .file()) var from: String?
        @OptionGroup var output: ChangeOutputOptions

        func validate() throws {
            if old.count != new.count { throw ValidationError("give as many --new as --old") }
            if resume && !old.isEmpty {
                throw ValidationError("--resume saves a kept edit; it takes no --old/--new")
            }
            if from != nil && !resume { throw ValidationError("--from goes with --resume") }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let relative = try workspace.resolveForWrite(path, in: ws)
            if resume { return try resumeKept(store, relative, ws) }
            if !old.isEmpty {
                let edits = zip(old, new).map { TextEdit(oldText: $0, newText: $1) }
                return try ChangeRenderer.render(
                    try store.edit(relative, edits: edits, by: .person), verb: "edited",
                    options: output, base: workspace.pathBase(store.workspace))
            }
            let existing = try Self.readIfPresent(relative, store)
            let original = existing?.content ?? ""
            let session = try EditorSession(
                name: (relative as NSString).lastPathComponent, text: original
            ).run()
            var keepTemporary = false
            defer { if !keepTemporary { session.remove() } }
            guard let edited = session.text else {
                // Not UTF-8: notes cannot save it, but the typing stays where the editor left it.
                keepTemporary = true
                throw NotesError(
                    .notText,
                    "the edited file is not UTF-8 text; nothing was written, and your text is kept in \(session.file)",
                    hint:
                        "save it as UTF-8, then `\(resumeCommand(ws, relative, from: session.file))`"
                )
            }
            if session.status != 0 {
                // The person may still want what they typed: kept, never written silently.
                guard edited != original else {
                    throw NotesError(
                        .invalidArgument,
                        "the editor (\(session.editor)) exited with status \(session.status); nothing was written",
                        hint: "set $EDITOR to an editor that waits, e.g. 'code --wait'")
                }
                let kept = keep(
                    edited, base: original, baseVersion: existing?.version ?? "", relative, ws,
                    temporary: session.file, keepTemporary: &keepTemporary)
                throw NotesError(
                    .invalidArgument,
                    "the editor (\(session.editor)) exited with status \(session.status); nothing was written, and your text is kept in \(kept)",
                    hint: "to save it: `\(resumeCommand(ws, relative, from: kept))`")
            }
            guard edited != original else {
                return Terminal.write("\(workspace.pathBase(ws).display(relative)) unchanged\n")
            }
            try save(
                store, ws, relative, edited: edited, base: original,
                baseVersion: existing?.version ?? "", kept: nil, temporary: session.file,
                keepTemporary: &keepTemporary)
        }

        /// `--resume`: saves the kept copy with the rules of a normal save.
        func resumeKept(_ store: NoteStore, _ relative: String, _ ws: Workspace) throws {
            guard var kept = KeptEdit.load(relative: relative, in: ws, from: from) else {
                throw NotesError(
                    .notFound,
                    "there is no kept edit of \(relative) to resume"
                        + (from.map { " (\($0) is not readable UTF-8 text)" } ?? ""),
                    hint: from == nil
                        ? "a failed save keeps your text in .notes/recovery/; nothing is there for this file"
                        : "check the path that the failed save printed")
            }
            let existing = try Self.readIfPresent(relative, store)
            if kept.baseVersion == "?" {
                // No record of what the edit started from: it replaces the file as it is now.
                kept = KeptEdit(
                    file: kept.file, edited: kept.edited, base: existing?.content ?? "",
                    baseVersion: existing?.version ?? "")
            }
            let retry = resumeCommand(ws, relative, from: kept.file)
            if let line = ThreeWayMerge.firstMarkerLine(Array(kept.edited.utf8)) {
                throw NotesError(
                    .invalidArgument,
                    "your kept copy \(kept.file) still has conflict markers (line \(line)); nothing was written",
                    hint:
                        "edit it: at each place keep the text you want and delete the <<<<<<<, ======= and >>>>>>> lines, then `\(retry)`"
                )
            }
            if let existing, existing.version != kept.baseVersion {
                let marked = ThreeWayMerge.marked(
                    base: Array(kept.base.utf8), ours: Array(kept.edited.utf8),
                    theirs: Array(existing.content.utf8), markers: Self.markers)
                if !marked.conflicts.isEmpty,
                    kept.rewritten(
                        String(decoding: marked.text, as: UTF8.self), base: existing.content,
                        baseVersion: existing.version, relative: relative) != nil
                {
                    throw LabeledConflicts(
                        error: NotesError(
                            .mergeConflict,
                            "\(relative) changed since your edit and \(marked.conflicts.count) place(s) collide; nothing was written, and your kept copy \(kept.file) now holds both versions of each place between conflict markers",
                            hint:
                                "edit it: keep the text you want, delete the <<<<<<<, ======= and >>>>>>> lines, then `\(retry)` saves it",
                            details: ErrorDetails(
                                path: relative, currentVersion: existing.version,
                                conflicts: marked.conflicts)),
                        sides: Self.sides)
                }
            }
            var unused = true
            try save(
                store, ws, relative, edited: kept.edited, base: kept.base,
                baseVersion: kept.baseVersion, kept: kept, temporary: nil, keepTemporary: &unused)
        }

        /// A collision's two sides, in the marker lines and in the error.
        static let markers = ThreeWayMerge.Markers(theirs: "the file now", ours: "your edit")
        static let sides = LabeledConflicts.Sides(theirs: "the file now", ours: "your edit")

        /// Saves `edited`; merges with a change made since `baseVersion`. On any failure
        /// that left the file without the edit, the typing is kept and the error says where.
        func save(
            _ store: NoteStore, _ ws: Workspace, _ relative: String, edited: String, base: String,
            baseVersion: String,
            kept: KeptEdit?, temporary: String?, keepTemporary: inout Bool
        ) throws {
            let failure: NotesError
            do {
                let (result, verb) = try saveOrMerge(
                    store, relative, edited: edited, base: base, baseVersion: baseVersion)
                kept?.discard()
                return try ChangeRenderer.render(
                    result, verb: verb, options: output, base: workspace.pathBase(store.workspace))
            } catch {
                failure = error as? NotesError ?? NotesError(.internal, "\(error)")
            }
            if failure.cause == .changeMade {
                kept?.discard()  // the file has the edit; only a later step failed
                throw failure
            }
            let place =
                kept?.file
                ?? keep(
                    edited, base: base, baseVersion: baseVersion, relative, ws,
                    temporary: temporary, keepTemporary: &keepTemporary)
            let retry = "`\(resumeCommand(ws, relative, from: place))`"
            let kept = NotesError(
                failure.code, failure.message + "; your edited text is kept in \(place)",
                hint: failure.hint.map { "\($0), then \(retry)" } ?? "retry with \(retry)",
                details: failure.details, cause: failure.cause)
            if kept.code == .mergeConflict {
                throw LabeledConflicts(error: kept, sides: Self.sides)
            }
            throw kept
        }

        /// Writes `edited` expecting `baseVersion`; merges when the file changed since.
        func saveOrMerge(
            _ store: NoteStore, _ relative: String, edited: String, base: String,
            baseVersion: String
        ) throws -> (ChangeResult, String) {
            let first: Result<ChangeResult, NotesError> = Result { () throws(NotesError) in
                try store.write(
                    relative, content: edited, options: ChangeOptions(expectedVersion: baseVersion),
                    by: .person)
            }
            switch first {
            case .success(let result):
                return (result, result.created ? "created" : "saved")
            case .failure(let error) where error.code == .staleVersion:
                return try mergeAfterConcurrentChange(
                    store, relative, original: base, edited: edited)
            case .failure(let error):
                throw error
            }
        }

        /// Keeps the typing (``KeptEdit``); returns where it is.
        func keep(
            _ edited: String, base: String, baseVersion: String, _ relative: String,
            _ ws: Workspace, temporary: String?, keepTemporary: inout Bool
        ) -> String {
            let place = KeptEdit.keep(
                edited, base: base, baseVersion: baseVersion, relative: relative, in: ws,
                temporary: temporary)
            if let place, place == temporary { keepTemporary = true }
            return place ?? temporary
                ?? "(nowhere: the workspace and the temporary folder both refused it)"
        }

        /// The exact command that saves the kept copy at `place`.
        func resumeCommand(_ ws: Workspace, _ relative: String, from place: String) -> String {
            var command = "notes -w \(shellQuoted(ws.root)) edit \(shellQuoted(relative)) --resume"
            if place != KeptEdit.folder(ws) + "/" + KeptEdit.name(for: relative) {
                command += " --from \(shellQuoted(place))"
            }
            return command
        }

        static func readIfPresent(_ relative: String, _ store: NoteStore) throws(NotesError)
            -> ReadResult?
        {
            do {
                return try store.read(relative, by: .person)
            } catch {
                if error.code == .notFound { return nil }
                throw error
            }
        }

        /// The file changed while the editor was open: merge the person's edit with that change.
        func mergeAfterConcurrentChange(
            _ store: NoteStore, _ relative: String, original: String, edited: String
        ) throws -> (ChangeResult, String) {
            let now = try Self.readIfPresent(relative, store)
            if let now, now.content == edited {
                return (
                    try store.write(
                        relative, content: edited,
                        options: ChangeOptions(expectedVersion: now.version), by: .person), "saved"
                )
            }
            switch ThreeWayMerge.merge(
                base: Array(original.utf8), ours: Array(edited.utf8),
                theirs: Array((now?.content ?? "").utf8))
            {
            case .merged(let bytes):
                let result = try store.write(
                    relative, content: String(decoding: bytes, as: UTF8.self),
                    options: ChangeOptions(expectedVersion: now?.version ?? ""), by: .person)
                return (result, "saved (merged with a change made while you edited)")
            case .conflicts(let hunks):
                throw NotesError(
                    .mergeConflict,
                    "\(relative) changed while you edited it and \(hunks.count) place(s) collide; nothing was written",
                    hint: "compare with `notes read \(relative)`",
                    details: ErrorDetails(
                        path: relative, currentVersion: now?.version, conflicts: hunks))
            }
        }
    }
}

/// `text` quoted for a POSIX shell when it needs it.
func shellQuoted(_ text: String) -> String {
    let plain = text.unicodeScalars.allSatisfy {
        CharacterSet.alphanumerics.contains($0) || "/._-+,:@%".unicodeScalars.contains($0)
    }
    return plain && !text.isEmpty
        ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
}

/// A temporary copy of a file opened in the person's editor.
struct EditorSession {
    let name: String
    let text: String

    /// What the editor left: the temporary file (the caller removes it with ``remove()``
    /// once the typing is saved or kept elsewhere), its text when UTF-8, the exit status.
    struct Outcome {
        let file: String
        let text: String?
        let status: Int32
        let editor: String

        func remove() {
            unlink(file)
            unlink(file + KeptEdit.sidecarSuffix)
            rmdir((file as NSString).deletingLastPathComponent)
        }
    }

    /// Opens `$VISUAL`, `$EDITOR` or `vi` on a temporary copy.
    func run() throws -> Outcome {
        let environment = ProcessInfo.processInfo.environment
        let editor =
            [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty }
            ?? "vi"
        let file = try Self.keep(text, name: name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", editor + " \"$1\"", "notes-edit", file]
        do {
            try process.run()
        } catch {
            unlink(file)
            rmdir((file as NSString).deletingLastPathComponent)
            throw NotesError(
                .invalidArgument, "cannot start the editor (\(editor)): \(error)",
                hint: "set $EDITOR")
        }
        process.waitUntilExit()
        let data = FileManager.default.contents(atPath: file)
        return Outcome(
            file: file, text: data.flatMap { String(data: $0, encoding: .utf8) },
            status: process.terminationStatus, editor: editor)
    }

    /// Writes `text` to a new private temporary file named after `name`; returns its path.
    static func keep(_ text: String, name: String) throws -> String {
        // NSTemporaryDirectory() ends with "/" (and $TMPDIR may too): one slash, not two.
        let folder = (NSTemporaryDirectory() as NSString).appendingPathComponent(
            "notes-edit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let file = folder + "/" + name
        guard
            FileManager.default.createFile(
                atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw NotesError(
                .ioError, "cannot create a temporary file for the editor",
                hint: "check \(NSTemporaryDirectory())")
        }
        return file
    }
}
