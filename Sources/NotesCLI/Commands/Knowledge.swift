import ArgumentParser
import Foundation
import NotesCore
import NotesStore

extension NotesCommand {
    /// `notes remember TEXT`: add a fact to context.md as the person (docs/spec.md §8.1).
    struct Remember: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remember",
            abstract:
                "Add a fact to context.md (a dated bullet; a fact already there is not added again).",
            discussion: """
                  notes remember "Prefers British spelling"
                  notes remember "Teaches on Tuesdays" --section "About me"
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The fact (several words are joined).") var text: [String]
        @Option(
            name: .long,
            help: ArgumentHelp(
                "The section to file it under (default: Learned).", valueName: "heading"))
        var section: String?
        @Flag(name: .long, help: "Print the result as JSON.") var json = false

        func run() throws {
            let store = NoteStore(workspace: try workspace.openWorkspace())
            let result = try store.remember(
                text.joined(separator: " "), section: section, by: .person)
            if json { return Terminal.write(try JSONOutput.document(result)) }
            if result.duplicate {
                Terminal.write(
                    "already in context.md (not added again): \(result.matching ?? "")\n")
            } else {
                Terminal.write(
                    "remembered under \"\(result.section)\": \(result.added ?? "")"
                        + Terminal.style("  version \(result.version ?? "-")", .dim) + "\n")
                if let line = result.contradicts ?? result.similar {
                    Terminal.write(
                        Terminal.style(
                            result.contradicts != nil
                                ? "  context.md says otherwise: "
                                : "  context.md has a similar line: ",
                            .yellow) + line
                            + "\n  (if the new fact replaces it, remove that line: `notes edit context.md`)\n"
                    )
                }
            }
        }
    }

    /// `notes context`: print context.md with its size against the budget (docs/spec.md §8.1).
    struct Context: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "context",
            abstract: "Print context.md, what the agent knows about you, with its size.")

        @OptionGroup var workspace: WorkspaceOptions
        @Flag(name: .long, help: "Print path, content, version, size and the size budget as JSON.")
        var json = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            let limit = ws.config.contextMaxBytes
            guard FileSystem.exists(ws.absolutePath(ContextFacts.path)) else {
                throw NotesError(
                    .notFound, "this workspace has no context.md yet",
                    hint: "`notes remember \"…\"` or `notes new context` creates it")
            }
            let read = try NoteStore(workspace: ws).read(ContextFacts.path, by: .person)
            if json {
                struct Output: Encodable {
                    var path: String, content: String, version: String, size: Int, max_bytes: Int,
                        over_limit: Bool
                    var user_sections: [String]
                }
                let owned = UserSections(Array(read.content.utf8), path: ContextFacts.path).sections
                    .map(\.heading)
                return Terminal.write(
                    try JSONOutput.document(
                        Output(
                            path: read.path, content: read.content, version: read.version,
                            size: read.size,
                            max_bytes: limit, over_limit: read.size > limit, user_sections: owned)))
            }
            Terminal.write(read.content)
            let percent = Int((Double(read.size) / Double(limit) * 100).rounded())
            var summary =
                "context.md: \(humanSize(read.size)) of the \(humanSize(limit)) budget (\(percent)%)"
            if read.size > limit {
                summary += " — over it: the agent is asked to propose a condensed version"
            }
            StandardStreams.writeError(
                (Terminal.style(summary, read.size > limit ? .yellow : .dim) + "\n"))
        }
    }

    /// `notes journal TEXT`: a timestamped entry in today's journal page (docs/spec.md §8.2).
    struct Journal: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "journal",
            abstract: "Add a timestamped entry to today's journal page (Journal/YYYY-MM-DD.md).",
            discussion: """
                The text comes from the arguments, else standard input (when piped), else
                $EDITOR. Entries are appended under "## HH:MM — user"; the agent appends its
                own the same way.

                  notes journal "Read chapter 42; the whiteness passage is the key."
                  pbpaste | notes journal
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The entry (several words are joined).") var text: [String] = []
        @Flag(name: .long, help: "Print the result as JSON.") var json = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            var entry = text.joined(separator: " ")
            var session: EditorSession.Outcome?
            var keepTemporary = false
            defer { if !keepTemporary { session?.remove() } }
            if entry.isEmpty {
                if isatty(0) == 1 {
                    session = try EditorSession(name: "journal-entry.md", text: "").run()
                    entry = session?.text ?? ""
                } else {
                    entry = try readStandardInput()
                }
            }
            /// Keeps the typed entry (issue 34): a failed save never deletes it.
            func kept(_ error: NotesError) -> NotesError {
                guard let session, !entry.isEmpty, error.cause != .changeMade else { return error }
                // Never over an earlier kept entry.
                var place = KeptEdit.folder(ws) + "/journal-entry-\(Int(Timestamp.now())).md"
                var n = 2
                while access(place, F_OK) == 0 {
                    place = KeptEdit.folder(ws) + "/journal-entry-\(Int(Timestamp.now()))~\(n).md"
                    n += 1
                }
                if !((mkdir(KeptEdit.folder(ws), 0o700) == 0 || errno == EEXIST)
                    && KeptEdit.writeWhole(place, Array(entry.utf8)))
                {
                    place = session.file
                    keepTemporary = true
                }
                let retry = "`notes -w \(shellQuoted(ws.root)) journal < \(shellQuoted(place))`"
                return NotesError(
                    error.code, error.message + "; your entry is kept in \(place)",
                    hint: error.hint.map { "\($0), then \(retry)" } ?? "to add it: \(retry)",
                    details: error.details, cause: error.cause)
            }
            if let session, session.status != 0 {
                throw kept(
                    NotesError(
                        .invalidArgument,
                        "the editor (\(session.editor)) exited with status \(session.status); nothing was written"
                    ))
            }
            if session != nil, session?.text == nil {
                keepTemporary = true
                throw NotesError(
                    .notText,
                    "the entry is not UTF-8 text; nothing was written, and it is kept in \(session!.file)",
                    hint: "save it as UTF-8")
            }
            let header = try? TemplateCatalog.load(
                library: try? TemplateLibrary.locate(explicit: nil), workspace: ws
            )
            .render("journal", title: "Journal", variables: [:], actor: .user, now: Timestamp.now())
            .files.first?.text
            var result: JournalResult
            do {
                result = try NoteStore(workspace: ws).journal(entry, header: header, by: .person)
            } catch {
                throw kept(error)
            }
            result.path = workspace.pathBase(ws).display(result.path)
            if json { return Terminal.write(try JSONOutput.document(result)) }
            Terminal.write(
                "\(result.created ? "started" : "added to") \(result.path): \(result.entry.dropFirst(3))"
                    + Terminal.style("  version \(result.version ?? "-")", .dim) + "\n")
        }
    }
}
