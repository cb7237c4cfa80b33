import ArgumentParser
import Foundation
import NotesCore
import NotesStore

extension NotesCommand {
    /// `notes edit PATH`: the person's edit in `$EDITOR`, recorded as theirs (SPEC §6.6).
    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Edit a file in $EDITOR (or replace exact text with --old/--new) as your change.",
            discussion: """
                The file is copied to a temporary file for the editor; when you save and quit, the
                result is written atomically with provenance and history. If the agent changed the
                file meanwhile, the two are merged; if they collide, nothing is written and your
                edited copy is kept.

                  notes edit Research/moby-dick/introduction.md
                  notes edit notes.md --old "Captain Ahab" --new "Ahab"
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to edit (created when missing).") var path: String
        @Option(name: .long, help: ArgumentHelp("Exact text to replace (repeatable, paired with --new).", valueName: "text")) var old: [String] = []
        @Option(name: .long, help: ArgumentHelp("Replacement text for the matching --old.", valueName: "text")) var new: [String] = []
        @OptionGroup var output: ChangeOutputOptions

        func validate() throws {
            if old.count != new.count { throw ValidationError("give as many --new as --old") }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let relative = try workspace.resolveForWrite(path, in: ws)
            if !old.isEmpty {
                let edits = zip(old, new).map { TextEdit(oldText: $0, newText: $1) }
                return try ChangeRenderer.render(try store.edit(relative, edits: edits, by: .person), verb: "edited", options: output)
            }
            let existing = try Self.readIfPresent(relative, store)
            let original = existing?.content ?? ""
            let edited = try EditorSession(name: (relative as NSString).lastPathComponent, text: original).run()
            guard edited != original else {
                return Terminal.write("\(relative) unchanged\n")
            }
            let result: ChangeResult
            do {
                result = try store.write(relative, content: edited, options: ChangeOptions(expectedVersion: existing?.version ?? ""), by: .person)
            } catch {
                guard error.code == .staleVersion else { throw error }
                return try mergeAfterConcurrentChange(store, relative, original: original, edited: edited)
            }
            try ChangeRenderer.render(result, verb: result.created ? "created" : "saved", options: output)
        }

        static func readIfPresent(_ relative: String, _ store: NoteStore) throws(NotesError) -> ReadResult? {
            do {
                return try store.read(relative, by: .person)
            } catch {
                if error.code == .notFound { return nil }
                throw error
            }
        }

        /// The file changed while the editor was open: merge the person's edit with that change.
        func mergeAfterConcurrentChange(_ store: NoteStore, _ relative: String, original: String, edited: String) throws {
                let now = try store.read(relative, by: .person)
                switch ThreeWayMerge.merge(base: Array(original.utf8), ours: Array(edited.utf8), theirs: Array(now.content.utf8)) {
                case .merged(let bytes):
                    let result = try store.write(relative, content: String(decoding: bytes, as: UTF8.self), options: ChangeOptions(expectedVersion: now.version), by: .person)
                    try ChangeRenderer.render(result, verb: "saved (merged with a change made while you edited)", options: output)
                case .conflicts(let hunks):
                    let kept = try EditorSession.keep(edited, name: (relative as NSString).lastPathComponent)
                    throw NotesError(.mergeConflict, "\(relative) changed while you edited it and \(hunks.count) place(s) collide; nothing was written",
                                     hint: "your edited text is in \(kept); compare with `notes read \(relative)`",
                                     details: ErrorDetails(path: relative, currentVersion: now.version, conflicts: hunks))
                }
        }
    }
}

/// A temporary copy of a file opened in the person's editor.
struct EditorSession {
    let name: String
    let text: String

    /// Opens `$VISUAL`, `$EDITOR` or `vi` on a temporary copy and returns the saved text.
    func run() throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let file = try Self.keep(text, name: name)
        defer { unlink(file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", editor + " \"$1\"", "notes-edit", file]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NotesError(.internal, "the editor (\(editor)) exited with status \(process.terminationStatus); nothing was written", hint: "set $EDITOR to an editor that waits, e.g. 'code --wait'")
        }
        guard let data = FileManager.default.contents(atPath: file), let edited = String(data: data, encoding: .utf8) else {
            throw NotesError(.notText, "the edited file is not UTF-8 text; nothing was written", hint: "save it as UTF-8")
        }
        return edited
    }

    /// Writes `text` to a new private temporary file named after `name`; returns its path.
    static func keep(_ text: String, name: String) throws -> String {
        let folder = NSTemporaryDirectory() + "/notes-edit-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let file = folder + "/" + name
        guard FileManager.default.createFile(atPath: file, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw NotesError(.internal, "cannot create a temporary file for the editor", hint: "check \(NSTemporaryDirectory())")
        }
        return file
    }
}
