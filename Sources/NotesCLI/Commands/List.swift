import ArgumentParser
import Foundation
import NotesCore
import NotesDocuments
import NotesIndex

extension NotesCommand {
    /// `notes list [DIR]`: files with kind, size, title, modified time, version and
    /// provenance (docs/spec.md §5).
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List files with their kind, title, version and provenance.")

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(
            help:
                "The folder to list (default: the current folder, or the workspace root with -w).",
            completion: Completion.folders) var folder: String?
        @Flag(name: [.short, .long], help: "Include every folder below.") var recursive = false
        @Option(
            name: .long,
            help:
                "Only files whose path (relative to the current folder, with a /) or name (without) matches this glob."
        ) var glob: String?
        @Option(
            name: .long, help: "Order: path, modified, created, title, size.",
            completion: Completion.values(ListSort.self)) var sort: String = "path"
        @Flag(name: .long, help: "Draw the folders as a tree (implies --recursive).") var tree =
            false
        @Flag(name: .long, help: "Print the listing as JSON.") var json = false

        func validate() throws {
            guard ListSort(rawValue: sort) != nil else {
                throw ValidationError(
                    "unknown sort '\(sort)' (use path, modified, created, title or size)")
            }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let base = workspace.pathBase(ws)
            let target = try base.resolve(folder ?? ".").relative
            if !target.isEmpty && !FileSystem.isDirectory(ws.absolutePath(target)) {
                throw base.noSuchPath(target, folder: true)
            }
            let deep = recursive || tree || glob != nil
            let order = ListSort(rawValue: sort) ?? .path
            // A glob with a folder in it is a path typed relative to the base; a bare name matches names.
            let glob = try glob.map {
                $0.contains("/") ? try WorkspacePath.normalize($0, from: base.folder) : $0
            }
            let listing: Listing
            do {
                let (index, refresh) = try workspace.openFreshIndex()
                listing = try index.listing(
                    folder: target, recursive: deep, glob: glob, sort: order)
                // A folder the walk could not open is missing from the listing: say which.
                for problem in refresh.diagnostics where problem.code == .unreadable {
                    StandardStreams.writeError(
                        "notes: \(workspace.pathBase(ws).display(problem.path)): \(problem.message)\n"
                    )
                }
            } catch let error as NotesError where error.cause == .indexUnusable {
                // The files are all there: list them by walking (issue 34).
                StandardStreams.writeError(
                    "notes: listed by reading the files (\(error.message); \(error.hint ?? ""))\n")
                listing = Listing.walking(
                    ws, folder: target, recursive: deep, glob: glob, sort: order)
            }
            var shown = listing
            shown.folder = base.display(listing.folder)
            for i in shown.folders.indices {
                shown.folders[i].path = base.display(shown.folders[i].path)
            }
            for i in shown.files.indices { shown.files[i].path = base.display(shown.files[i].path) }
            if json { return Terminal.write(try JSONOutput.document(shown)) }
            if tree {
                return Terminal.write(Self.tree(listing, root: target, label: base.display(target)))
            }
            var out = ""
            for sub in shown.folders {
                out +=
                    Terminal.style(sub.path + "/", .blue)
                    + Terminal.style("  \(grouped(sub.files)) file(s)", .dim) + "\n"
            }
            let width = min(60, shown.files.map { $0.path.count }.max() ?? 0)
            for file in shown.files {
                let padded = file.path.padding(
                    toLength: max(width, file.path.count), withPad: " ", startingAt: 0)
                var line =
                    padded + "  "
                    + Terminal.style(
                        file.kind.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0), .cyan)
                line +=
                    humanSize(file.size).padding(toLength: 9, withPad: " ", startingAt: 0) + "  "
                line +=
                    Terminal.style(String(file.modified.prefix(10)), .dim) + "  "
                    + (file.provenance.lastModifiedBy?.rawValue ?? "user").padding(
                        toLength: 5, withPad: " ", startingAt: 0)
                line += "  " + file.title
                out += line + "\n"
            }
            Terminal.write(out)
        }

        /// An indented tree of the listing's files.
        static func tree(_ listing: Listing, root: String, label: String) -> String {
            var out = (label.isEmpty ? "." : label) + "\n"
            var printedFolders = Set<String>()
            let prefix = root.isEmpty ? "" : root + "/"
            for file in listing.files {
                let parts = file.path.dropFirst(prefix.count).split(separator: "/")
                for depth in 0..<(parts.count - 1) {
                    let folder = parts[0...depth].joined(separator: "/")
                    if printedFolders.insert(folder).inserted {
                        out +=
                            String(repeating: "  ", count: depth + 1)
                            + Terminal.style(String(parts[depth]) + "/", .blue) + "\n"
                    }
                }
                let name = String(parts.last ?? "")
                let title =
                    file.title != DocumentParser.fileTitle(name)
                    ? Terminal.style("  " + file.title, .dim) : ""
                out += String(repeating: "  ", count: parts.count) + name + title + "\n"
            }
            return out
        }
    }
}
