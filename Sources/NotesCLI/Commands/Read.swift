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

        /// A file the history says was deleted or moved: where it went, or how to bring it
        /// back, with paths as typed from here (nil: the history knows nothing of it).
        static func gone(_ relative: String, store: NoteStore, base: PathBase) -> NotesError? {
            let shown = base.display(relative)
            switch store.history.whereabouts(of: relative) {
            case .moved(let to, let record):
                return NotesError(
                    .notFound,
                    "\(shown) was moved to \(base.display(to)) (\(record.madeBy), \(record.time))",
                    hint: "`notes read \(shellQuoted(base.display(to)))`")
            case .deleted(let version, let record):
                return NotesError(
                    .notFound,
                    "\(shown) was deleted (\(record.madeBy), \(record.time)); its last version \(version) is kept in history",
                    hint: "`notes restore \(shellQuoted(shown))` brings it back")
            case nil:
                return nil
            }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let base = workspace.pathBase(ws)
            let store = NoteStore(workspace: ws)
            let relative = try base.resolve(path).relative
            var result: ReadResult
            do {
                result = try store.read(
                    relative, offset: offset, limit: limit == 0 ? nil : limit, lossy: true,
                    by: .person)
            } catch {
                let failure: NotesError = error
                if failure.code == .notFound,
                    let gone = Self.gone(relative, store: store, base: base)
                {
                    throw gone
                }
                if failure.code == .notFound, failure.message == "no file at \(relative)" {
                    throw NotesError(
                        .notFound, "no file at \(base.display(relative))", hint: failure.hint)
                }
                throw failure
            }
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
