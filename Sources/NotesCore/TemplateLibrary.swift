import Foundation

/// Where the shipped templates are (SPEC §8.3): `--templates DIR`, else `$NOTES_TEMPLATES`,
/// else `share/notes/templates` next to the installed binary, else the repository's
/// `templates/` found above the binary (a build from a checkout).
public struct TemplateLibrary: Sendable {
    /// The folder holding `workspace/` and the other templates.
    public let directory: String

    public init(directory: String) { self.directory = directory }

    public static func locate(explicit: String?, executable: String = CommandLine.arguments.first ?? "") throws(NotesError) -> TemplateLibrary {
        var candidates: [String] = []
        if let explicit { candidates.append(explicit) }
        if let env = ProcessInfo.processInfo.environment["NOTES_TEMPLATES"], !env.isEmpty { candidates.append(env) }
        let exe = FileSystem.realPath("/proc/self/exe") ?? FileSystem.realPath(executable) ?? executable
        var folder = (exe as NSString).deletingLastPathComponent
        candidates.append(folder + "/../share/notes/templates")
        while folder.count > 1 {
            candidates.append(folder + "/templates")
            folder = (folder as NSString).deletingLastPathComponent
        }
        for candidate in candidates where FileSystem.isDirectory(candidate + "/workspace") {
            return TemplateLibrary(directory: FileSystem.realPath(candidate) ?? candidate)
        }
        throw NotesError(.notFound, "cannot find the notes templates", hint: "set NOTES_TEMPLATES to the repository's templates/ folder")
    }
}

/// Creates a workspace from the `workspace/` template (`notes init`).
public enum WorkspaceSkeleton {
    public struct Result: Sendable {
        public var root: String
        /// Files and folders created, relative to the root.
        public var created: [String]
        /// Template files that already existed and were left alone.
        public var kept: [String]
    }

    /// Copies the skeleton into `target` (created if missing). Template text files get
    /// `{{date}}`, `{{datetime}}`, `{{actor}}`, `{{title}}` and `{{slug}}` filled in; a
    /// file named `.keep` only makes its folder. Existing files are never overwritten.
    public static func create(at target: String, from library: TemplateLibrary, now: Double) throws(NotesError) -> Result {
        if FileSystem.isDirectory(target + "/.notes") {
            throw NotesError(.invalidArgument, "\(target) is already a workspace (it has .notes/)", hint: "nothing to do; use `notes status` to see it")
        }
        if FileSystem.exists(target) && !FileSystem.isDirectory(target) {
            throw NotesError(.invalidArgument, "\(target) exists and is not a folder", hint: "choose another path")
        }
        try FileSystem.makeDirectories(target)
        let root = FileSystem.realPath(target) ?? target
        let datetime = Timestamp.format(now)
        let title = (root as NSString).lastPathComponent
        let values = ["date": String(datetime.prefix(10)), "datetime": datetime, "actor": Actor.user.rawValue,
                      "title": title, "slug": TemplateText.slug(title)]
        var result = Result(root: root, created: [], kept: [])
        let source = library.directory + "/workspace"
        guard let enumerator = FileManager.default.enumerator(atPath: source) else {
            throw NotesError(.notFound, "template folder \(source) is unreadable", hint: "check NOTES_TEMPLATES")
        }
        var files: [String] = []
        while let item = enumerator.nextObject() as? String { files.append(item) }
        try FileSystem.makeDirectories(root + "/.notes")
        result.created.append(".notes/")
        for relative in files.sorted() {
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
            let rendered = Array(TemplateText(String(decoding: bytes, as: UTF8.self)).render(values).utf8)
            guard FileManager.default.createFile(atPath: to, contents: Data(rendered)) else {
                throw NotesError(.internal, "cannot create \(to)", hint: "check that the folder is writable")
            }
            result.created.append(relative)
        }
        return result
    }
}
