import Foundation
import Yams

/// The templates a workspace can use: the shipped ones (`templates/templates.yml`), with
/// the workspace's `.notes/templates/` overriding or adding (docs/spec.md §8.3).
public struct TemplateCatalog: Sendable {
    public let templates: [TemplateDefinition]

    /// Names every template gets without being asked.
    public static let builtInVariables = ["title", "slug", "date", "datetime", "actor"]

    /// Loads the shipped catalog from `library` (when found) and the workspace's overrides.
    public static func load(library: TemplateLibrary?, workspace: Workspace?) throws(NotesError)
        -> TemplateCatalog
    {
        var byName: [String: TemplateDefinition] = [:]
        var order: [String] = []
        let shipped = library?.directory
        let overrides = workspace.map { $0.stateDirectory + "/templates" }
        for folder in [shipped, overrides].compactMap({ $0 })
        where FileSystem.exists(folder + "/templates.yml") {
            for definition in try parse(manifest: folder + "/templates.yml", folder: folder) {
                if byName[definition.name] == nil { order.append(definition.name) }
                byName[definition.name] = definition
            }
        }
        // Files in the override folder replace shipped ones at the same relative path.
        if let shipped, let overrides, FileSystem.isDirectory(overrides) {
            for (name, definition) in byName {
                byName[name] = overridingFiles(definition, in: overrides, shipped: shipped)
            }
        }
        return TemplateCatalog(templates: order.compactMap { byName[$0] })
    }

    init(templates: [TemplateDefinition]) { self.templates = templates }

    /// A shipped template's text replaced by a file at the same relative path in `folder`.
    static func overridingFiles(
        _ definition: TemplateDefinition, in folder: String, shipped: String
    ) -> TemplateDefinition {
        guard definition.sourcePath.hasPrefix(shipped + "/") else { return definition }
        let relative = String(definition.sourcePath.dropFirst(shipped.count + 1))
        var copy = definition
        if FileSystem.exists(folder + "/" + relative) { copy.sourcePath = folder + "/" + relative }
        return copy
    }

    static func parse(manifest: String, folder: String) throws(NotesError) -> [TemplateDefinition] {
        let text: String
        do {
            text = String(
                decoding: try FileBytes.read(path: manifest, maxBytes: 1 << 20), as: UTF8.self)
        } catch {
            switch error {
            case .notFound:
                throw NotesError(
                    .notFound, "\(manifest) is gone", hint: "restore it, or remove its folder")
            case .notRegularFile:
                throw NotesError(
                    .ioError, "\(manifest) is not a file",
                    hint: "make it a file, or remove it to use the shipped templates",
                    details: ErrorDetails(path: manifest))
            case .tooLarge(let size):
                throw NotesError(
                    .tooLarge, "\(manifest) is \(size >> 20) MB, over 1 MB",
                    hint: "a template manifest lists templates; keep it small")
            case .unreadable(let code):
                throw NotesError.system(
                    code, "cannot read \(manifest) (\(String(cString: strerror(code))))",
                    hint: "check the file", path: manifest)
            }
        }
        let node: Node?
        do { node = try Yams.compose(yaml: text) } catch {
            throw NotesError(
                .invalidArgument, "\(manifest) is not valid YAML: \(error)", hint: "fix the file")
        }
        guard let mapping = node?.mapping else { return [] }
        var out: [TemplateDefinition] = []
        for (key, value) in mapping {
            guard let name = key.string, let fields = value.mapping else {
                throw NotesError(
                    .invalidArgument,
                    "\(manifest): each template is a name with description, source, target",
                    hint: "see templates/templates.yml")
            }
            guard let source = fields["source"]?.string, let target = fields["target"]?.string
            else {
                throw NotesError(
                    .invalidArgument, "\(manifest): template '\(name)' needs source and target",
                    hint: "see templates/templates.yml")
            }
            var variables: [TemplateVariable] = []
            for (vKey, vValue) in fields["variables"]?.mapping ?? [:] {
                guard let vName = vKey.string else { continue }
                let description = vValue.mapping?["description"]?.string ?? vValue.string ?? ""
                let required = vValue.mapping?["required"]?.bool ?? true
                variables.append(
                    TemplateVariable(name: vName, description: description, required: required))
            }
            let sourcePath =
                folder + "/" + source.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            out.append(
                TemplateDefinition(
                    name: name, description: fields["description"]?.string ?? "", target: target,
                    isFolder: source.hasSuffix("/"), variables: variables, sourcePath: sourcePath))
        }
        return out
    }

    /// The template called `name`.
    public func template(_ name: String) throws(NotesError) -> TemplateDefinition {
        guard let found = templates.first(where: { $0.name == name }) else {
            throw NotesError(
                .notFound, "no template '\(name)'",
                hint: "the templates are: \(templates.map(\.name).joined(separator: ", "))")
        }
        return found
    }

    /// Renders template `name` for `title` with `variables` (plus the built-in ones).
    /// `path` overrides the target: a folder (ending in `/` or existing) receives the
    /// template's file under its usual name; anything else is the exact file (or folder).
    public func render(
        _ name: String, title: String, variables: [String: String], actor: Actor, now: Double,
        path: String? = nil, isFolder: (String) -> Bool = { _ in false }
    ) throws(NotesError) -> RenderedTemplate {
        let definition = try template(name)
        let cleanTitle = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !cleanTitle.isEmpty else {
            throw NotesError(
                .invalidArgument, "a title is needed", hint: "e.g. notes new \(name) \"Moby Dick\"")
        }
        let known = Set(definition.variables.map(\.name))
        if let unknown = variables.keys.filter({
            !known.contains($0) && !Self.builtInVariables.contains($0)
        }).sorted().first {
            let list = definition.variables.map(\.name).joined(separator: ", ")
            throw NotesError(
                .invalidArgument, "template '\(name)' has no variable '\(unknown)'",
                hint: list.isEmpty ? "it takes only the title" : "its variables are: \(list)")
        }
        let missing = definition.variables.filter {
            $0.required && (variables[$0.name] ?? "").isEmpty
        }.map(\.name)
        if !missing.isEmpty {
            throw NotesError(
                .invalidArgument, "template '\(name)' needs \(missing.joined(separator: ", "))",
                hint: "pass --var \(missing[0])=…")
        }
        let datetime = Timestamp.format(now)
        var values = variables
        values["title"] = cleanTitle
        values["slug"] = variables["slug"].map(TemplateText.slug) ?? TemplateText.slug(cleanTitle)
        values["date"] = Timestamp.localDate(now)
        values["datetime"] = datetime
        values["actor"] = actor.rawValue

        var target = TemplateText(definition.target).render(values)
        if let path, !path.isEmpty {
            let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
            if !definition.isFolder && (path.hasSuffix("/") || isFolder(trimmed)) {
                target = trimmed + "/" + (target as NSString).lastPathComponent
            } else {
                target = trimmed
            }
        }
        var files: [(path: String, text: String)] = []
        if definition.isFolder {
            guard let enumerator = FileManager.default.enumerator(atPath: definition.sourcePath)
            else {
                throw NotesError(
                    .notFound, "template folder \(definition.sourcePath) is missing",
                    hint: "check the templates folder")
            }
            var relatives: [String] = []
            while let item = enumerator.nextObject() as? String { relatives.append(item) }
            for relative in relatives.sorted()
            where !FileSystem.isDirectory(definition.sourcePath + "/" + relative) {
                let name = (relative as NSString).lastPathComponent
                let text =
                    name == ".keep" ? "" : try Self.text(of: definition.sourcePath + "/" + relative)
                files.append((target + "/" + relative, TemplateText(text).render(values)))
            }
        } else {
            files.append(
                (target, TemplateText(try Self.text(of: definition.sourcePath)).render(values)))
        }
        let main =
            definition.isFolder
            ? (files.first { !$0.path.hasSuffix("/.keep") }?.path ?? target) : target
        return RenderedTemplate(template: name, path: main, files: files)
    }

    static func text(of path: String) throws(NotesError) -> String {
        do {
            return String(
                decoding: try FileBytes.read(path: path, maxBytes: 1 << 20), as: UTF8.self)
        } catch {
            throw NotesError(
                .notFound, "template file \(path) is missing or unreadable",
                hint: "check the templates folder")
        }
    }
}
