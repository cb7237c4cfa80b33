import ArgumentParser
import Foundation
import NotesCore
import NotesStore

extension NotesCommand {
    /// `notes new TEMPLATE TITLE`: create files from a template (docs/spec.md §8.3).
    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new",
            abstract: "Create a note or a research topic from a template.",
            discussion: """
                Templates: research (a topic folder: introduction, notes, sources/),
                introduction, source, journal, context; `notes templates` lists them with
                their variables. A workspace can override or add templates in
                .notes/templates/. Never overwrites a file.

                  notes new research "Moby Dick" --var question="Why is the whale white?"
                  notes new source "Hawthorne's letter" --var author="Herman Melville" \\
                    --to Research/moby-dick/sources/
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "The template's name.", completion: Completion.templates) var template:
            String
        @Argument(help: "The title (several words are joined).") var title: [String]
        @Option(
            name: .customLong("var"),
            help: ArgumentHelp("A template variable.", valueName: "key=value")) var variables:
            [String] = []
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Where to create it instead of the template's default (a folder ending in / or a path).",
                valueName: "path"), completion: Completion.paths) var to: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "A folder of templates to use instead of the shipped ones.", valueName: "dir"),
            completion: .directory)
        var templates: String?
        @Flag(name: .long, help: "Print what was created as JSON.") var json = false

        func run() throws {
            let ws = try workspace.openWorkspace()
            var values: [String: String] = [:]
            for pair in variables {
                guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
                    throw NotesError(
                        .invalidArgument, "--var needs key=value, got '\(pair)'",
                        hint: "e.g. --var author=\"Herman Melville\"")
                }
                values[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
            }
            let catalog = try TemplateCatalog.load(
                library: try TemplateLibrary.locate(explicit: templates), workspace: ws)
            let target = try to.map {
                try workspace.resolveForWrite($0, in: ws) + ($0.hasSuffix("/") ? "/" : "")
            }
            let rendered = try catalog.render(
                template, title: title.joined(separator: " "), variables: values, actor: .user,
                now: Timestamp.now(),
                path: target, isFolder: { FileSystem.isDirectory(ws.absolutePath($0)) })
            var result = try NoteStore(workspace: ws).create(rendered, by: .person)
            let base = workspace.pathBase(ws)
            for i in result.files.indices {
                result.files[i].path = base.display(result.files[i].path)
            }
            result.folders = result.folders.map { base.display($0) }
            if json { return Terminal.write(try JSONOutput.document(result)) }
            var out = ""
            for file in result.files {
                out +=
                    Terminal.style("  created ", .green) + file.path
                    + Terminal.style("  version \(file.version ?? "-")", .dim) + "\n"
            }
            for folder in result.folders {
                out += Terminal.style("  created ", .green) + folder + "/\n"
            }
            Terminal.write(out)
        }
    }

    /// `notes templates`: the templates with their variables.
    struct Templates: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "templates",
            abstract: "List the templates `notes new` can use, with their variables.")

        @OptionGroup var workspace: WorkspaceOptions
        @Option(
            name: .long,
            help: ArgumentHelp(
                "A folder of templates to use instead of the shipped ones.", valueName: "dir"),
            completion: .directory)
        var templates: String?
        @Flag(name: .long, help: "Print the list as JSON.") var json = false

        func run() throws {
            let ws = try? workspace.openWorkspace()
            let catalog = try TemplateCatalog.load(
                library: try TemplateLibrary.locate(explicit: templates), workspace: ws)
            if json {
                return Terminal.write(try JSONOutput.document(["templates": catalog.templates]))
            }
            var out = ""
            for t in catalog.templates {
                out += Terminal.style(t.name, .bold) + "  " + t.description + "\n"
                let target = t.target.replacingOccurrences(of: "{{", with: "<")
                    .replacingOccurrences(of: "}}", with: ">")
                out += Terminal.style("    creates \(target)\(t.isFolder ? "/" : "")", .dim) + "\n"
                for v in t.variables {
                    out +=
                        "    --var \(v.name)=…  \(v.description)"
                        + (v.required ? "" : Terminal.style(" (optional)", .dim)) + "\n"
                }
            }
            out += Terminal.style(
                "Every template also gets title, slug, date, datetime and actor.\n", .dim)
            Terminal.write(out)
        }
    }
}
