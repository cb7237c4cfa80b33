import ArgumentParser
import Foundation
import NotesCore
import NotesStore

extension NotesCommand {
    /// `notes read PATH`: a file's text with its version and provenance (docs/spec.md §5).
    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "read",
            abstract: "Print a file (or a range of its lines) with its version and provenance.",
            discussion: """
                Paths are relative to the current folder, or to the workspace root with -w (see
                docs/cli.md, "Paths"). --offset is the first line (1-based), --limit the number
                of lines. Text that is not valid UTF-8 (Latin-1…) is shown as search indexed
                it: the bytes that are not UTF-8 as U+FFFD, with a note on standard error.
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The file to read.", completion: Completion.paths) var path: String
        @Option(name: .long, help: "First line to print (1-based).") var offset: Int?
        @Option(name: .long, help: "Number of lines to print (0: to the end, as in search).")
        var limit: Int?
        @Flag(
            name: .long, help: "Print content, version, provenance, size and total_lines as JSON.")
        var json = false

        func validate() throws {
            if let offset, offset < 1 { throw ValidationError("--offset must be at least 1") }
            if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let base = workspace.pathBase(ws)
            var result = try NoteStore(workspace: ws).read(
                try base.resolve(path).relative, offset: offset, limit: limit == 0 ? nil : limit,
                lossy: true,
                by: .person)
            result.path = base.display(result.path)
            if let line = result.invalidUTF8Line {
                // Shown as search indexed it; saying so keeps the person from saving the U+FFFDs back.
                StandardStreams.writeError(
                    "notes: \(result.path) is not valid UTF-8 (from line \(line)): the bytes that are not are shown as \u{FFFD}, as search sees them; the file is unchanged\n"
                )
            }
            if json { return Terminal.write(try JSONOutput.document(result)) }
            if Terminal.stdoutIsTTY {
                var header =
                    "\(result.path) · version \(result.version) · "
                    + HitRenderer.provenance(result.provenance).dropFirst(2)
                if offset != nil || limit != nil {
                    header +=
                        " · lines \(result.offset)–\(result.offset + max(result.lines, 1) - 1) of \(result.totalLines)"
                }
                Terminal.write(Terminal.style(header, .dim) + "\n")
            }
            Terminal.write(result.content)
        }
    }
}
