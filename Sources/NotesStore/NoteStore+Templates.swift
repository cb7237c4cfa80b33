import Foundation
import NotesCore

/// What creating files from a template did.
public struct TemplateResult: Codable, Sendable, Equatable {
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var version: String?
    }
    public var template: String
    /// The main file (or, for a folder template, its first file).
    public var path: String
    /// The main file's version.
    public var version: String?
    public var files: [File]
    /// Folders made (e.g. `sources/` of a research topic).
    public var folders: [String]
}

extension NoteStore {
    /// Creates the files of `rendered` through the write path (stamped, logged), never
    /// replacing an existing file: if any target exists nothing is created.
    public func create(_ rendered: RenderedTemplate, by author: Author) throws(NotesError)
        -> TemplateResult
    {
        var targets: [(path: WorkspacePath, text: String)] = []
        var folders: [WorkspacePath] = []
        for file in rendered.files {
            if (file.path as NSString).lastPathComponent == ".keep" {
                // A marker that only makes its folder (a dot-name, so check the folder).
                folders.append(
                    try resolve(
                        (file.path as NSString).deletingLastPathComponent, for: author, .create
                    ).path)
                continue
            }
            let path = try resolve(file.path, for: author, .create).path
            if FileSystem.exists(workspace.absolutePath(path.relative)) {
                throw NotesError(
                    .invalidArgument, "\(path) already exists; nothing was created",
                    hint: "choose another title, or pass a path",
                    details: ErrorDetails(path: path.relative))
            }
            targets.append((path, file.text))
        }
        var result = TemplateResult(
            template: rendered.template, path: rendered.path, files: [], folders: [])
        for (path, text) in targets {
            var options = ChangeOptions()
            options.mustNotExist = true
            options.templateText = true
            let change = try write(path.relative, content: text, options: options, by: author)
            result.files.append(.init(path: path.relative, version: change.version))
            if path.relative == rendered.path { result.version = change.version }
        }
        for folder in folders where !folder.relative.isEmpty {
            try FileSystem.makeDirectories(workspace.absolutePath(folder.relative))
            result.folders.append(folder.relative)
        }
        if result.version == nil { result.version = result.files.first?.version }
        return result
    }
}
