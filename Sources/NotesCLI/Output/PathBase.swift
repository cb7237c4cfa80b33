import Foundation
import NotesCore

/// The folder the command line's paths are relative to, typed and printed alike, as git's
/// are (docs/cli.md "Paths"; docs/decisions.md D235): the current folder when the workspace
/// was found by walking up from it; the workspace root when it was named (`-w DIR`,
/// `$NOTES_WORKSPACE`), as `git -C DIR` changes into DIR first. So every path `notes`
/// prints can be passed back to `notes` or to another program from where it was printed.
///
/// The one place workspace-relative paths (the library's, MCP's) and the person's paths
/// are converted: commands resolve what was typed with ``resolve(_:)`` and print paths
/// through ``display(_:)``.
struct PathBase: Sendable {
    let workspace: Workspace
    /// The base, workspace-relative ("" is the workspace root).
    let folder: String

    /// The base for `workspace` found or named by `options`.
    init(
        _ workspace: Workspace, options: WorkspaceOptions,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.init(
            workspace,
            named: !(options.workspace ?? "").isEmpty
                || !(environment["NOTES_WORKSPACE"] ?? "").isEmpty)
    }

    /// The base for `workspace`, `named` by `-w` or `$NOTES_WORKSPACE` (the root) or found
    /// from the current folder (that folder, when inside the workspace).
    init(_ workspace: Workspace, named: Bool) {
        self.workspace = workspace
        let cwd =
            FileSystem.realPath(FileSystem.currentDirectory()) ?? FileSystem.currentDirectory()
        let root = workspace.root
        if !named, cwd.hasPrefix(root + "/") {
            folder = String(cwd.dropFirst(root.count + 1))
        } else {
            folder = ""
        }
    }

    /// A path as typed made workspace-relative and checked (``WorkspacePath``): an absolute
    /// path inside the workspace, or one relative to the base (`..` may leave the base, not
    /// the workspace). The file need not exist.
    func resolve(_ typed: String) throws(NotesError) -> WorkspacePath {
        let root = workspace.root
        if typed.hasPrefix("/") {
            let real = FileSystem.realPath(typed) ?? typed
            for candidate in [typed, real]
            where candidate == root || candidate.hasPrefix(root + "/") {
                return try WorkspacePath(
                    candidate == root ? "" : String(candidate.dropFirst(root.count + 1)),
                    in: workspace)
            }
            throw NotesError(
                .outsideWorkspace, "\(typed) is not inside the workspace \(root)",
                hint: "give a path inside the workspace")
        }
        return try WorkspacePath(try WorkspacePath.normalize(typed, from: folder), in: workspace)
    }

    /// A workspace-relative path as printed: relative to the base, climbing with `../` to
    /// paths outside it (`../Journal/2026-11-20.md` from `Research/`); the base itself is ".".
    func display(_ path: String) -> String {
        guard !folder.isEmpty else { return path }
        let base = folder.split(separator: "/")
        let target = path.split(separator: "/")
        var common = 0
        while common < base.count && common < target.count && base[common] == target[common] {
            common += 1
        }
        let parts =
            Array(repeating: "..", count: base.count - common) + target[common...].map(String.init)
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }

    /// An optional path as printed.
    func display(_ path: String?) -> String? { path.map { display($0) } }

    /// The error for `path` (workspace-relative), typed for a command that needs it to
    /// exist (a `folder` for `notes list`; a folder or file for `in:`): it does not, or is a
    /// file where a folder is needed. It suggests the name in the letter case the folder has
    /// it (`in:journal`); typed inside a subfolder, where paths are relative to it, it says
    /// so and suggests the same name in a folder above, where it exists (a person used to
    /// workspace paths types `in:Journal` in `Research/`).
    func noSuchPath(_ path: String, folder needsFolder: Bool = false) -> NotesError {
        let shown = display(path)
        if needsFolder && FileSystem.exists(workspace.absolutePath(path)) {
            return NotesError(
                .invalidArgument, "\(shown) is a file, not a folder",
                hint: "`notes read \(shown)` prints it; `notes list` lists folders")
        }
        func fits(_ candidate: String) -> Bool {
            let absolute = workspace.absolutePath(candidate)
            return needsFolder ? FileSystem.isDirectory(absolute) : FileSystem.exists(absolute)
        }
        // The same name in other letter case where it was typed (`in:journal`), else, typed
        // inside a subfolder, the name in the nearest folder above that has it.
        var suggestion = caseVariant(of: path).flatMap { fits($0) ? $0 : nil }
        // Typed relative to the base (not climbing out of it, not absolute elsewhere).
        let relative = !folder.isEmpty && path.hasPrefix(folder + "/")
        if relative {
            let typed = String(path.dropFirst(folder.count + 1))
            var above = folder.split(separator: "/").map(String.init)
            while suggestion == nil && !above.isEmpty {
                above.removeLast()
                let candidate = (above + [typed]).joined(separator: "/")
                if fits(candidate) {
                    suggestion = candidate
                } else if let variant = caseVariant(of: candidate), fits(variant) {
                    suggestion = variant
                }
            }
        }
        return NotesError(
            .notFound,
            relative
                ? "there is no \(shown) in \(folder)/, the current folder"
                : "there is no \(shown) in the workspace",
            hint: suggestion.map { "did you mean \(display($0))?" }
                ?? "check the path; `notes list` shows the folders")
    }

    /// `path` (workspace-relative) with its last name as spelt in its folder, when that
    /// folder holds the name in other letter case only.
    private func caseVariant(of path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        let parent = (path as NSString).deletingLastPathComponent
        guard !name.isEmpty,
            let names = try? FileManager.default.contentsOfDirectory(
                atPath: workspace.absolutePath(parent))
        else { return nil }
        let lower = name.lowercased()
        guard
            let found = names.first(where: {
                $0 != name && !$0.hasPrefix(".") && $0.lowercased() == lower
            })
        else {
            return nil
        }
        return parent.isEmpty ? found : parent + "/" + found
    }
}

extension PathBase {
    /// A file's problem with its path as printed.
    func display(_ diagnostic: Diagnostic) -> Diagnostic {
        var shown = diagnostic
        shown.path = display(diagnostic.path)
        return shown
    }
}
