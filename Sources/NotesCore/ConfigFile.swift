import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `.notes/config.yml` as a long-lived process sees it: the settings last loaded, and the
/// file's stat stamp then, so a change (the person adds a protected path while an MCP
/// server or `notes watch` runs) is noticed with one `stat` and loaded again. Shared by
/// every copy of a ``Workspace``.
final class ConfigFile: @unchecked Sendable {
    private let path: String
    private let root: String
    private let lock = NSLock()
    private var loaded: WorkspaceConfig
    private var loadedStamp: String

    init(root: String) {
        self.root = root
        path = root + "/.notes/config.yml"
        // Stamped before reading: a save between the two is seen as a change next time.
        loadedStamp = Self.stamp(path)
        loaded = WorkspaceConfig.load(root: root)
    }

    var current: WorkspaceConfig {
        lock.lock()
        defer { lock.unlock() }
        return loaded
    }

    /// The stat stamp of the settings in ``current``.
    var stamp: String {
        lock.lock()
        defer { lock.unlock() }
        return loadedStamp
    }

    /// Loads the file again when its stamp changed; returns whether it did.
    func reloadIfChanged() -> Bool {
        let now = Self.stamp(path)
        lock.lock()
        defer { lock.unlock() }
        guard now != loadedStamp else { return false }
        loadedStamp = now
        let fresh = WorkspaceConfig.load(root: root)
        if let warning = fresh.unreadableWarning,
            loaded.unreadableWarning == nil || loaded.keptLastGood
        {
            // A broken edit keeps the settings in force (issue 34 item 9): an agent must
            // not gain access because the person's file has a typo.
            var kept = loaded
            kept.diagnostics = fresh.diagnostics
            kept.unreadableWarning = warning.replacingOccurrences(
                of: "every path is protected for the agent until the person fixes it",
                with: "the settings loaded before it broke stay in force until the person fixes it")
            kept.keptLastGood = true
            guard kept.unreadableWarning != loaded.unreadableWarning else { return false }
            loaded = kept
            return true
        }
        loaded = fresh
        return true
    }

    /// Inode, size, mtime and ctime of the file (ctime: a rewrite that keeps size and mtime
    /// still changes it), or `absent`.
    static func stamp(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return "absent" }
        return
            "\(info.st_ino)-\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)-\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
    }
}
