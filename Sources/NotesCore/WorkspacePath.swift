/// A validated path relative to a workspace root: no NUL, not absolute, no `..` leaving
/// the root, and (for parts that exist) no symlink whose real path leaves the root
/// (docs/spec.md §10). The string form uses `/` and has no `.`/`..`/empty components.
public struct WorkspacePath: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The normalised relative path (`""` is the root itself).
    public let relative: String

    public var description: String { relative }

    public static func < (lhs: WorkspacePath, rhs: WorkspacePath) -> Bool {
        lhs.relative < rhs.relative
    }

    /// Validates `raw` (relative to the workspace root) against `workspace`.
    public init(_ raw: String, in workspace: Workspace) throws(NotesError) {
        let relative = try Self.normalize(raw)
        try Self.checkContainment(relative, root: workspace.root)
        self.relative = relative
    }

    /// `raw` typed relative to the workspace folder `base` ("" is the root), normalised
    /// (`..` may climb out of `base`, never out of the root): `normalize("../Journal",
    /// from: "Research")` is `Journal`. Globs pass through with their wildcards.
    public static func normalize(_ raw: String, from base: String) throws(NotesError) -> String {
        guard !base.isEmpty, !raw.hasPrefix("/"), !raw.hasPrefix("~"), !raw.utf8.contains(0) else {
            return try normalize(raw)
        }
        do {
            return try normalize(base + "/" + raw)
        } catch  where error.code == .outsideWorkspace {
            throw NotesError(
                .outsideWorkspace, "path '\(raw)' leaves the workspace",
                hint: "paths must stay inside the workspace root")
        }
    }

    /// Lexical normalisation: rejects NUL, absolute paths and `..` that leaves the root.
    public static func normalize(_ raw: String) throws(NotesError) -> String {
        if raw.utf8.contains(0) {
            throw NotesError(
                .outsideWorkspace, "path contains a NUL byte",
                hint: "use a plain workspace-relative path")
        }
        if raw.hasPrefix("/") || raw.hasPrefix("~") {
            // The value is not echoed: an absolute host path does not belong in an answer.
            throw NotesError(
                .outsideWorkspace, "absolute and home-relative paths are not accepted",
                hint: "give a path relative to the workspace root, such as Research/topic/notes.md")
        }
        var parts: [Substring] = []
        for part in raw.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if parts.isEmpty {
                    throw NotesError(
                        .outsideWorkspace, "path '\(raw)' leaves the workspace",
                        hint: "paths must stay inside the workspace root")
                }
                parts.removeLast()
                continue
            }
            // Longer than the file system allows (NAME_MAX): the caller's mistake, not an
            // internal failure (issue 34 item 11).
            if part.utf8.count > 255 {
                throw NotesError(
                    .invalidArgument,
                    "the name '\(part.prefix(40))…' is \(part.utf8.count) bytes long; file systems allow 255",
                    hint: "choose a shorter name")
            }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        if joined.utf8.count > 4000 {
            throw NotesError(
                .invalidArgument, "the path is \(joined.utf8.count) bytes long; the limit is 4000",
                hint: "choose a shorter path")
        }
        return joined
    }

    /// Resolves the longest existing prefix of `relative` and checks that its real path is
    /// the root or below it (a separator-aware prefix test, so `root_evil` is outside).
    static func checkContainment(_ relative: String, root: String) throws(NotesError) {
        var probe = relative.isEmpty ? root : root + "/" + relative
        while !FileSystem.exists(probe) {
            guard let slash = probe.lastIndex(of: "/"), probe.count > root.count else { return }
            probe = String(probe[..<slash])
        }
        guard let real = FileSystem.realPath(probe) else {
            // A dangling symlink: its target does not exist; refuse to go through it.
            throw NotesError(
                .outsideWorkspace, "path '\(relative)' goes through a broken symlink",
                hint: "use a path to a real file inside the workspace")
        }
        let rootReal = root.isEmpty ? "/" : root
        if !(real == rootReal || real.hasPrefix(rootReal == "/" ? "/" : rootReal + "/")) {
            throw NotesError(
                .outsideWorkspace, "path '\(relative)' leads outside the workspace",
                hint: "symlinks may not point out of the workspace")
        }
    }
}
