import ArgumentParser
import Foundation
import NotesCore
import NotesIndex

extension NotesCommand {
    /// `notes index`: bring the search index up to date, or rebuild it (SPEC §4.3).
    struct Index: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Update the search index now (every reading command also does this).",
            discussion: "Only changed files are re-read. --rebuild starts from an empty index; the files are never touched.")

        @OptionGroup var workspace: WorkspaceOptions

        @Flag(name: .long, help: "Drop the index and build it again from the files.")
        var rebuild = false
        @Flag(name: .long, help: "Print the report as JSON.")
        var json = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            let index = try workspace.openIndex(ws)
            if rebuild { try index.erase() }
            let progress = ProgressBar(label: rebuild ? "Rebuilding" : "Indexing")
            let report = try index.refresh(progress: progress.update)
            progress.finish()
            if json { return Terminal.write(try JSONOutput.document(report)) }
            Terminal.write(Self.summary(report) + "\n")
            for diagnostic in report.diagnostics.prefix(10) {
                Terminal.write(Terminal.style("  warning: ", .yellow) + StatusText.describe(diagnostic) + "\n")
            }
            if report.diagnostics.count > 10 {
                Terminal.write(Terminal.style("  … and \(report.diagnostics.count - 10) more (see `notes status`)", .dim) + "\n")
            }
        }

        static func summary(_ r: RefreshReport) -> String {
            let rate = r.seconds > 0 ? Double(r.bytesParsed) / 1e6 / r.seconds : 0
            var parts = ["\(grouped(r.added)) added", "\(grouped(r.modified)) modified", "\(grouped(r.removed)) removed"]
            if !r.renames.isEmpty { parts.append("\(r.renames.count) renamed") }
            if r.touched > 0 { parts.append("\(r.touched) touched (unchanged bytes)") }
            var line = "Indexed \(grouped(r.files)) files in \(String(format: "%.2f", r.seconds)) s: " + parts.joined(separator: ", ")
            if r.bytesParsed > 0 { line += String(format: "; parsed %@ (%.1f MB/s)", humanSize(r.bytesParsed), rate) }
            if !r.diagnostics.isEmpty { line += "; \(r.diagnostics.count) warning(s)" }
            return line
        }
    }
}
