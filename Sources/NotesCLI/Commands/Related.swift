import ArgumentParser
import Foundation
import NotesCore
import NotesDocuments
import NotesIndex

extension NotesCommand {
    /// `notes related PATH`: the notes nearest one note in meaning, for linking.
    struct Related: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "related",
            abstract: "List the notes nearest a note in meaning (candidates to link to it).",
            discussion: """
                Needs the embedding model (`notes model`) and the workspace embedded (`notes
                index`). A note is compared by the mean of its passages' vectors; the note
                itself is left out. Exit status: 0 with notes, 1 with none, 2 on error.

                Examples:
                  notes related Research/moby-dick/introduction.md
                  notes related Research/moby-dick/notes.md --limit 3 --json
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The note.", completion: Completion.paths) var path: String
        @Option(name: .long, help: "Most notes to show.") var limit: Int = 10
        @Flag(name: .long, help: "One JSON document.") var json = false

        func validate() throws {
            guard (1...1_000).contains(limit) else {
                throw ValidationError("--limit must be between 1 and 1000")
            }
        }

        func run() throws {
            let (index, _) = try workspace.openFreshIndex()
            let base = workspace.pathBase(index.workspace)
            let target = try base.resolve(path).relative
            var result = try index.related(to: target, limit: limit)
            result.path = base.display(result.path)
            for i in result.related.indices {
                result.related[i].path = base.display(result.related[i].path)
            }
            if json { return Terminal.write(try JSONOutput.document(result)) }
            var out = ""
            for note in result.related {
                out +=
                    String(format: "%.2f  ", note.similarity) + Terminal.style(note.path, .magenta)
                if note.title != DocumentParser.fileTitle(note.path) {
                    out += "  " + Terminal.style(note.title, .bold)
                }
                out += "\n"
            }
            if !result.semantic.isComplete {
                out +=
                    Terminal.style(
                        "(\(grouped(result.semantic.embeddedFiles)) of \(grouped(result.semantic.files)) files embedded; `notes index` embeds the rest)",
                        .dim) + "\n"
            }
            Terminal.write(out)
            if result.related.isEmpty { throw ExitCode(1) }
        }
    }
}
