#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A shared workspace: the folder of files a person and an agent work in (docs/spec.md §2).
///
/// The files are the primary data. The tool's own durable state lives in `.notes/` inside
/// the root; the search index is a per-device cache outside it (see ``indexDirectory``).
public struct Workspace: Sendable {
    /// The canonical absolute path of the root folder (symlinks resolved, no trailing `/`).
    public let root: String
    /// Settings from `.notes/config.yml`, or defaults, as last loaded (a long-lived process
    /// calls ``reloadConfigIfChanged()``).
    public var config: WorkspaceConfig { configFile.current }
    private let configFile: ConfigFile
    /// The root folder's device and inode when opened (see ``isStillAtItsPath``).
    private let rootIdentity: [UInt64]

    /// Opens the workspace at `root`, which must be an existing folder.
    public init(root: String) throws(NotesError) {
        // One stat: the identity is nil unless the path is a folder.
        guard let real = FileSystem.realPath(root), let identity = Self.identity(of: real) else {
            throw NotesError(
                .notFound, "workspace folder \(root) does not exist",
                hint: "check the path given to -w")
        }
        self.root = real == "/" ? "" : real
        self.configFile = ConfigFile(root: real)
        self.rootIdentity = identity
    }

    /// Whether the root folder is still the one opened, at the same path. A long-lived
    /// process (the MCP server, `notes watch`) checks before it works: moved or deleted,
    /// the folder would look empty at its old path, and a refresh would drop every file
    /// from the index and an agent would see an empty workspace.
    public var isStillAtItsPath: Bool {
        Self.identity(of: root) == rootIdentity
    }

    /// The error for a workspace no longer at its path.
    public var movedError: NotesError {
        NotesError(
            .notFound, "the workspace folder \(root) was moved or deleted",
            hint: "start notes again in its new place")
    }

    private static func identity(of folder: String) -> [UInt64]? {
        var info = stat()
        guard stat(folder.isEmpty ? "/" : folder, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR
        else { return nil }
        return [UInt64(info.st_dev), UInt64(info.st_ino)]
    }

    /// Loads `.notes/config.yml` again if it changed since it was read (one `stat`): for the
    /// processes that outlive an edit of it (the MCP server, the built-in agent, `notes
    /// watch`). Every copy of this workspace sees the new settings. Returns whether they
    /// changed; the caller then rescans (ignore rules, protected paths and policy decide
    /// what is indexed, watched and hidden from the agent).
    @discardableResult
    public func reloadConfigIfChanged() -> Bool {
        configFile.reloadIfChanged()
    }

    /// Identifies the settings in ``config`` (the config file's stat stamp when loaded):
    /// `notes watch` publishes it, so other commands trust its index only under the same rules.
    public var configStamp: String { configFile.stamp }

    /// The `.notes/` folder holding history, proposals, config and templates.
    public var stateDirectory: String { root + "/.notes" }

    /// Whether `notes init` (or a first write) has created `.notes/` here.
    public var isInitialized: Bool { FileSystem.isDirectory(stateDirectory) }

    /// The absolute path of a workspace-relative path.
    public func absolutePath(_ relative: String) -> String {
        relative.isEmpty ? root : root + "/" + relative
    }

    /// Finds the workspace the way docs/spec.md §2 says: `--workspace/-w`, else `$NOTES_WORKSPACE`,
    /// else the nearest ancestor of the current folder that holds `.notes/`.
    public static func discover(
        explicit: String?, environment: [String: String], currentDirectory: String
    ) throws(NotesError) -> Workspace {
        if let explicit, !explicit.isEmpty {
            return try named(absolute(explicit, from: currentDirectory), by: "-w \(explicit)")
        }
        if let fromEnv = environment["NOTES_WORKSPACE"], !fromEnv.isEmpty {
            return try named(absolute(fromEnv, from: currentDirectory), by: "NOTES_WORKSPACE")
        }
        var folder = currentDirectory
        while true {
            if FileSystem.isDirectory(folder + "/.notes") { return try Workspace(root: folder) }
            guard let slash = folder.lastIndex(of: "/"), folder != "/" else { break }
            folder = slash == folder.startIndex ? "/" : String(folder[..<slash])
        }
        throw NotesError(
            .notFound, "no workspace found in \(currentDirectory) or any folder above it",
            hint:
                "run `notes init` to make one here (`notes init --minimal` for a folder of notes you already have), or pass -w DIR"
        )
    }

    /// The workspace at `root`, named by `-w` or `NOTES_WORKSPACE` (`source`). A folder
    /// inside another workspace without a `.notes/` of its own is refused: opened as a
    /// workspace, a write there would make it one, and what was written would be hidden
    /// from the workspace around it (its own index, history and context.md).
    static func named(_ root: String, by source: String) throws(NotesError) -> Workspace {
        let workspace = try Workspace(root: root)
        if !FileSystem.isDirectory(workspace.root + "/.notes"),
            let outer = WorkspaceSkeleton.enclosingWorkspace(of: workspace.root)
        {
            throw NotesError(
                .invalidArgument,
                "\(root) (\(source)) is a folder inside the workspace \(outer), not a workspace of its own",
                hint:
                    "pass the workspace (-w \(outer)), or make the folder a workspace of its own: `notes init --nested \(root)`"
            )
        }
        return workspace
    }

    /// Where this device keeps the search index for this workspace (docs/spec.md §2): an explicit
    /// override (`--index-dir`, `$NOTES_INDEX_DIR`), else `$XDG_CACHE_HOME/notes/<name>-<id>/`,
    /// else `~/.cache/notes/<name>-<id>/` (`$HOME`, else the user's home in the password
    /// database; never a shared folder: with neither, this refuses). `<name>` is the root
    /// folder's name (ASCII, at most 32 characters), `<id>` is derived from its real path.
    public func indexDirectory(override: String?, environment: [String: String]) throws(NotesError)
        -> String
    {
        if let override, !override.isEmpty {
            return Self.absolute(override, from: FileSystem.currentDirectory())
        }
        if let fromEnv = environment["NOTES_INDEX_DIR"], !fromEnv.isEmpty {
            return Self.absolute(fromEnv, from: FileSystem.currentDirectory())
        }
        let base: String
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = home + "/.cache"
        } else if let home = Self.homeFromPasswordDatabase() {
            // Never a shared path such as /tmp/.cache, which another user could prepare.
            base = home + "/.cache"
        } else {
            throw NotesError(
                .invalidArgument,
                "cannot tell where to keep the search index: HOME is not set and this user has no home folder",
                hint: "set HOME, XDG_CACHE_HOME or NOTES_INDEX_DIR")
        }
        let name = root.split(separator: "/").last.map(String.init) ?? "root"
        let safeName = String(
            name.unicodeScalars.map {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
                        || $0 == "_")
                    ? Character($0) : "_"
            }.prefix(32))
        return base + "/notes/" + safeName + "-"
            + String(SHA256.hex(of: Array((root.isEmpty ? "/" : root).utf8)).prefix(12))
    }

    /// This user's home folder from the password database (`getpwuid`), when it has a real
    /// one (not `/`, which would put a shared `/.cache` in play).
    static func homeFromPasswordDatabase() -> String? {
        guard let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir else { return nil }
        let home = String(cString: dir)
        guard home.hasPrefix("/"), home != "/" else { return nil }
        return home
    }

    static func absolute(_ path: String, from base: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") {
            // Shells expand ~, but $NOTES_WORKSPACE set in a config file may not be.
            if let home = getenvString("HOME") { return home + path.dropFirst() }
        }
        return base == "/" ? "/" + path : base + "/" + path
    }
}

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}
