import ArgumentParser
import Foundation
import NotesCore

extension NotesCommand {
    /// `notes init [DIR]`: make a workspace from the shipped skeleton (docs/spec.md §8.3).
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Make DIR (default: here) a workspace: .notes/ plus the starter files.",
            discussion: "Never overwrites a file. Refuses a folder that is already a workspace.")

        @Argument(help: "The folder to set up (created if missing).", completion: .directory)
        var directory: String = "."
        @Option(
            name: .long,
            help: ArgumentHelp(
                "A folder of templates to use instead of the shipped ones.", valueName: "dir"),
            completion: .directory)
        var templates: String?
        @Flag(
            name: .long,
            help:
                "Only .notes/ (for a folder of notes you already have): no starter folders or files."
        )
        var minimal = false
        @Flag(
            name: .long,
            help: "Allow a workspace inside another workspace (which would index its files too).")
        var nested = false
        @Flag(name: .long, help: "Print what was created as JSON.") var json = false
        @OptionGroup var style: ColorOption

        func run() throws {
            let cwd = FileSystem.currentDirectory()
            let target = directory.hasPrefix("/") ? directory : cwd + "/" + directory
            let library = try TemplateLibrary.locate(explicit: templates)
            let result = try WorkspaceSkeleton.create(
                at: target, from: library, now: Timestamp.now(), minimal: minimal, nested: nested)
            if json {
                struct Output: Encodable {
                    var root: String
                    var created: [String]
                    var kept: [String]
                }
                return Terminal.write(
                    try JSONOutput.document(
                        Output(root: result.root, created: result.created, kept: result.kept)))
            }
            var out = "Initialized workspace \(result.root)\n"
            for path in result.created { out += Terminal.style("  created ", .green) + path + "\n" }
            for path in result.kept {
                out += Terminal.style("  kept    ", .dim) + path + " (already there)\n"
            }
            if result.root == (FileSystem.realPath(cwd) ?? cwd) {
                out += "\nNext: `notes status`, then `notes search …`.\n"
            } else {
                let shown = shellQuoted(directory)
                out +=
                    "\nNext: `notes -w \(shown) search …`, or `cd \(shown)` and run `notes status`.\n"
            }
            Terminal.write(out)
        }
    }
}
