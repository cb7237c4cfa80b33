import Foundation

/// Creates a workspace from the `workspace/` template (`notes init`).
public enum WorkspaceSkeleton {
    public struct Result: Sendable {
        public var root: String
        /// Files and folders created, relative to the root.
        public var created: [String]
        /// Template files that already existed and were left alone.
        public var kept: [String]
    }

    /// The workspace root above `target` (a folder holding `.notes/`), if any: `target`'s
    /// nearest existing folder is resolved (symlinks), then its parents are searched.
    public static func enclosingWorkspace(of target: String) -> String? {
        var existing = target
        while !FileSystem.isDirectory(existing) && existing != "/" && !existing.isEmpty {
            existing = (existing as NSString).deletingLastPathComponent
        }
        let real = FileSystem.realPath(existing) ?? existing
        let start =
            FileSystem.realPath(target) == real
            ? (real as NSString).deletingLastPathComponent : real
        var folder = start
        while true {
            if FileSystem.isDirectory(folder + "/.notes") { return folder }
            if folder == "/" || folder.isEmpty { return nil }
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// Copies the skeleton into `target` (created if missing). Template text files get
    /// `{{date}}`, `{{datetime}}`, `{{actor}}`, `{{title}}` and `{{slug}}` filled in; a
    /// file named `.keep` only makes its folder. Existing files are never overwritten.
    /// - Parameter minimal: only `.notes/` (for a folder of notes that already exists):
    ///   no Research/, Journal/, Chats/ or context.md.
    /// - Parameter nested: allow a workspace inside another one (D254); refused otherwise,
    ///   since the outer workspace would index the inner one's files as its own.
    public static func create(
        at target: String, from library: TemplateLibrary, now: Double, minimal: Bool = false,
        nested: Bool = false
    )
        throws(NotesError) -> Result
    {
        if FileSystem.isDirectory(target + "/.notes") {
            throw NotesError(
                .invalidArgument, "\(target) is already a workspace (it has .notes/)",
                hint: "nothing to do; use `notes status` to see it")
        }
        if FileSystem.exists(target) && !FileSystem.isDirectory(target) {
            throw NotesError(
                .invalidArgument, "\(target) exists and is not a folder",
                hint: "choose another path")
        }
        if !nested, let outer = enclosingWorkspace(of: target) {
            throw NotesError(
                .invalidArgument,
                "\(target) is inside the workspace \(outer), which would index its files too; nothing was created",
                hint: "use a folder outside it, or pass --nested to make a workspace there anyway"
            )
        }
        try FileSystem.makeDirectories(target)
        let root = FileSystem.realPath(target) ?? target
        let datetime = Timestamp.format(now)
        let title = (root as NSString).lastPathComponent
        let values = [
            "date": String(datetime.prefix(10)), "datetime": datetime, "actor": Actor.user.rawValue,
            "title": title, "slug": TemplateText.slug(title),
        ]
        var result = Result(root: root, created: [], kept: [])
        let source = library.directory + "/workspace"
        guard let enumerator = FileManager.default.enumerator(atPath: source) else {
            throw NotesError(
                .notFound, "template folder \(source) is unreadable", hint: "check NOTES_TEMPLATES")
        }
        var files: [String] = []
        while let item = enumerator.nextObject() as? String { files.append(item) }
        try FileSystem.makeDirectories(root + "/.notes")
        result.created.append(".notes/")
        for relative in files.sorted() where !minimal || relative.hasPrefix(".notes/") {
            let from = source + "/" + relative
            let to = root + "/" + relative
            if FileSystem.isDirectory(from) {
                if !FileSystem.exists(to) {
                    try FileSystem.makeDirectories(to)
                    result.created.append(relative + "/")
                }
                continue
            }
            if (relative as NSString).lastPathComponent == ".keep" { continue }
            if FileSystem.exists(to) {
                result.kept.append(relative)
                continue
            }
            guard let bytes = try? FileBytes.read(path: from, maxBytes: 1 << 20) else { continue }
            let rendered = Array(
                TemplateText(String(decoding: bytes, as: UTF8.self)).render(values).utf8)
            guard FileManager.default.createFile(atPath: to, contents: Data(rendered)) else {
                throw NotesError(
                    .ioError, "cannot create \(to)",
                    hint: "check that the folder is writable and the disk has space",
                    details: ErrorDetails(path: to))
            }
            result.created.append(relative)
        }
        return result
    }
}
