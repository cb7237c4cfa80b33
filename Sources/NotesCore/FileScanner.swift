import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One regular file found by the walk, with the stat facts used for change detection.
public struct ScannedFile: Hashable, Sendable {
    /// Workspace-relative path with `/` separators.
    public var path: String
    public var size: Int
    /// Modification time in nanoseconds since the epoch.
    public var mtimeNanos: Int64
    public var inode: UInt64

    public init(path: String, size: Int, mtimeNanos: Int64, inode: UInt64) {
        self.path = path
        self.size = size
        self.mtimeNanos = mtimeNanos
        self.inode = inode
    }
}

/// The result of walking a workspace.
public struct WorkspaceScan: Sendable {
    /// Regular files that belong to the workspace, in walk order.
    public var files: [ScannedFile] = []
    /// Sync-conflict copies (not indexed), as workspace-relative paths.
    public var conflictCopies: [String] = []
    /// Entries that look like documents but cannot be read as files (FIFOs, sockets...).
    public var skipped: [Diagnostic] = []
}

/// Walks a workspace with `readdir` + `fstatat` (no symlinks followed, no special files
/// opened) applying ``IgnoreRules``. The stat walk is what makes a no-change refresh cheap.
public struct FileScanner: Sendable {
    public let root: String
    public let rules: IgnoreRules

    public init(workspace: Workspace) {
        self.root = workspace.root
        self.rules = IgnoreRules(globs: workspace.config.ignore)
    }

    public init(root: String, rules: IgnoreRules) {
        self.root = root
        self.rules = rules
    }

    /// Walks the whole tree (or the sub-folder `below`, relative).
    ///
    /// The top levels are read first, breadth-first, until there are enough folders to
    /// share; those are then walked on every core (a stat walk is mostly system time, which
    /// spreads over cores: a no-change refresh of 100k notes is bound by it).
    public func scan(below: String = "") -> WorkspaceScan {
        var result = WorkspaceScan()
        guard let top = openFolder(below) else { return result }
        // Every folder listed here stays open until the walk ends: the frontier's folders
        // are opened relative to them (no path lookup from the root, no real-path check).
        // At most 4 rounds of fewer than 64 folders, so the descriptors are bounded.
        var listed: [OpaquePointer] = [top]
        defer { for dir in listed { closedir(dir) } }
        var frontier = children(of: top, relative: below, into: &result)
        var rounds = 1
        while !frontier.isEmpty && frontier.count < 64 && rounds < 4 {
            var next: [ChildFolder] = []
            for folder in frontier {
                guard let dir = openChild(folder.name, in: folder.parent) else { continue }
                listed.append(dir)
                next += children(of: dir, relative: folder.path, into: &result)
            }
            frontier = next
            rounds += 1
        }
        let folders = frontier
        let parts = ParallelSlots<WorkspaceScan>(count: folders.count)
        DispatchQueue.concurrentPerform(iterations: folders.count) { i in
            var part = WorkspaceScan()
            if let dir = openChild(folders[i].name, in: folders[i].parent) { walkOpen(dir, relative: folders[i].path, into: &part) }
            parts.set(i, part)
        }
        for part in parts.values {
            result.files += part.files
            result.conflictCopies += part.conflictCopies
            result.skipped += part.skipped
        }
        return result
    }

    /// A sub-folder found by the walk, to be opened relative to its open parent.
    private struct ChildFolder: Sendable {
        let parent: Int32
        let name: String
        let path: String
    }

    /// Lists the open folder `dir` (left open): its files go into `result`, its included
    /// sub-folders (sorted) are returned.
    private func children(of dir: OpaquePointer, relative: String, into result: inout WorkspaceScan) -> [ChildFolder] {
        var subfolders: [(name: String, path: String)] = []
        list(dir, relative: relative, into: &result, subfolders: &subfolders)
        let parent = dirfd(dir)
        return subfolders.map { ChildFolder(parent: parent, name: $0.name, path: $0.path) }
    }

    /// Opens the sub-folder `name` relative to its parent's descriptor with O_NOFOLLOW: a
    /// name swapped for a symlink (or anything but a folder) fails to open.
    private func openChild(_ name: String, in parent: Int32) -> OpaquePointer? {
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return nil
        }
        return dir
    }

    /// Looks only at `paths` (workspace-relative files or folders, e.g. the ones a file
    /// watcher reported): a folder is walked, a file is stat'ed, a path that is gone or
    /// ignored yields nothing. Paths inside an ignored folder are ignored.
    public func scan(paths: some Sequence<String>) -> WorkspaceScan {
        var result = WorkspaceScan()
        var walked = Set<String>()
        for path in Set(paths).sorted() where !path.isEmpty {
            // A folder walked already covers everything below it.
            if walked.contains(where: { path.hasPrefix($0 + "/") }) { continue }
            guard isIncluded(path) else { continue }
            let name = path.split(separator: "/").last.map(String.init) ?? path
            var info = stat()
            guard lstat(root + "/" + path, &info) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                walked.insert(path)
                walk(relative: path, into: &result)
            } else if rules.verdict(name: name, path: path) == .conflictCopy {
                result.conflictCopies.append(path)
            } else if type == S_IFREG {
                let nanos = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
                result.files.append(ScannedFile(path: path, size: Int(info.st_size), mtimeNanos: nanos, inode: UInt64(info.st_ino)))
            } else if type != S_IFLNK, FileFormat(path: path).isIndexed {
                result.skipped.append(Diagnostic(path: path, code: .notRegularFile, message: "not a regular file (FIFO, socket or device); skipped"))
            }
        }
        return result
    }

    /// Whether no component of `path` is ignored (the last may be a conflict copy).
    public func isIncluded(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            let name = String(component)
            prefix = prefix.isEmpty ? name : prefix + "/" + name
            if rules.verdict(name: name, path: prefix) == .ignore { return false }
        }
        return true
    }

    /// Walks the folder `relative` and everything below it, depth first.
    private func walk(relative: String, into result: inout WorkspaceScan) {
        guard let dir = openFolder(relative) else { return }
        walkOpen(dir, relative: relative, into: &result)
    }

    /// Opens the folder `relative` by path; nil when it is gone, not a folder, or was swapped
    /// for a symlink since its parent was read (its real path is then not the path meant).
    private func openFolder(_ relative: String) -> OpaquePointer? {
        let folder = relative.isEmpty ? (root.isEmpty ? "/" : root) : root + "/" + relative
        guard let dir = opendir(folder) else { return nil }
        if !relative.isEmpty, !FileSystem.descriptor(dirfd(dir), isAt: folder) {
            closedir(dir)
            return nil
        }
        return dir
    }

    /// Reads the open folder `dir` (closing it) and everything below it. Each sub-folder is
    /// opened relative to its parent's descriptor with O_NOFOLLOW: a name swapped for a
    /// symlink fails to open, so nothing outside is walked, with no per-folder path lookup
    /// or real-path check (a no-change refresh of 100k notes is bound by these system calls).
    private func walkOpen(_ dir: OpaquePointer, relative: String, into result: inout WorkspaceScan) {
        defer { closedir(dir) }
        var subfolders: [(name: String, path: String)] = []
        list(dir, relative: relative, into: &result, subfolders: &subfolders)
        let parent = dirfd(dir)
        for sub in subfolders {
            guard let child = openChild(sub.name, in: parent) else { continue }
            walkOpen(child, relative: sub.path, into: &result)
        }
    }

    /// Lists the open folder `dir`: files into `result`, included sub-folders (sorted) into
    /// `subfolders`.
    ///
    /// Names come first (`readdir`, whose entry type tells folders and links apart without a
    /// `stat`), then the files are stat'ed: in chunks on every core when the folder is large
    /// (a flat folder of thousands of notes is common, and its stats are most of a walk),
    /// in order either way, so the walk's output does not depend on the schedule.
    private func list(_ dir: OpaquePointer, relative: String, into result: inout WorkspaceScan, subfolders found: inout [(name: String, path: String)]) {
        let dirFD = dirfd(dir)
        var subfolders: [(name: String, path: String)] = []
        var entries: [Entry] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name == "." || name == ".." { continue }
            var path = name
            if !relative.isEmpty {
                path = String()
                path.reserveCapacity(relative.utf8.count + 1 + name.utf8.count)
                path += relative
                path += "/"
                path += name
            }
            let verdict = rules.verdict(name: name, path: path)
            if verdict == .ignore { continue }
            switch Int32(entry.pointee.d_type) {
            case Int32(DT_DIR):
                // A folder swapped for something else since is not opened (O_DIRECTORY).
                if verdict == .include { subfolders.append((name, path)) }
            case Int32(DT_LNK):
                continue  // never followed, never listed
            default:
                entries.append(Entry(name: name, path: path, verdict: verdict))
            }
        }
        let parts: [Listing]
        if entries.count >= Self.parallelStatThreshold {
            let chunks = stride(from: 0, to: entries.count, by: Self.statChunk).map { $0..<min($0 + Self.statChunk, entries.count) }
            let slots = ParallelSlots<Listing>(count: chunks.count)
            let all = entries
            DispatchQueue.concurrentPerform(iterations: chunks.count) { i in
                var part = Listing()
                for entry in all[chunks[i]] { place(entry, at: dirFD, into: &part) }
                slots.set(i, part)
            }
            parts = slots.values
        } else {
            var part = Listing()
            for entry in entries { place(entry, at: dirFD, into: &part) }
            parts = [part]
        }
        for part in parts {
            result.files += part.scan.files
            result.conflictCopies += part.scan.conflictCopies
            result.skipped += part.scan.skipped
            subfolders += part.subfolders
        }
        found += subfolders.sorted { $0.path < $1.path }
    }

    /// A folder entry that needs a `stat` to be placed (a file, or of unknown type).
    private struct Entry: Sendable {
        let name: String
        let path: String
        let verdict: IgnoreRules.Verdict
    }

    /// What stat'ing some entries of one folder found.
    private struct Listing: Sendable {
        var scan = WorkspaceScan()
        var subfolders: [(name: String, path: String)] = []
    }

    /// Folders with at least this many entries to stat are stat'ed on every core.
    static let parallelStatThreshold = 1_024
    static let statChunk = 512

    /// Stats one entry of the folder open at `dirFD` (no symlink followed) and files it.
    private func place(_ entry: Entry, at dirFD: Int32, into listing: inout Listing) {
        var info = stat()
        guard fstatat(dirFD, entry.name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR {
            // A filesystem that does not report entry types (DT_UNKNOWN).
            if entry.verdict == .include { listing.subfolders.append((entry.name, entry.path)) }
            return
        }
        if entry.verdict == .conflictCopy {
            listing.scan.conflictCopies.append(entry.path)
            return
        }
        if type == S_IFREG {
            let nanos = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            listing.scan.files.append(ScannedFile(path: entry.path, size: Int(info.st_size), mtimeNanos: nanos, inode: UInt64(info.st_ino)))
        } else if type != S_IFLNK, FileFormat(path: entry.path).isIndexed {
            listing.scan.skipped.append(Diagnostic(path: entry.path, code: .notRegularFile, message: "not a regular file (FIFO, socket or device); skipped"))
        }
    }
}
