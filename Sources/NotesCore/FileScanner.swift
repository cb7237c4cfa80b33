import CSystemCalls
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// Walks the whole tree (or the sub-folder `below`, relative), stamping every folder it
    /// lists with its ctime when that is older than `trustingChangesBefore` (ns since the
    /// epoch; see ``FolderStamp``).
    ///
    /// The top levels are read first, breadth-first, until there are enough folders to
    /// share; those are then walked on every core (a stat walk is mostly system time, which
    /// spreads over cores: a no-change refresh of 100k notes is bound by it).
    public func scan(below: String = "", trustingChangesBefore: Int64 = 0) -> WorkspaceScan {
        scan(below: below, stamping: stampRules(trustBefore: trustingChangesBefore))
    }

    func scan(below: String, stamping: StampRules) -> WorkspaceScan {
        var result = WorkspaceScan()
        guard let top = openFolder(below) else { return result }
        // Every folder listed here stays open until the walk ends: the frontier's folders
        // are opened relative to them (no path lookup from the root, no real-path check).
        // At most 4 rounds of fewer than 64 folders, so the descriptors are bounded.
        var listed: [OpaquePointer] = [top]
        defer { for dir in listed { closedir(dir) } }
        var frontier = children(of: top, relative: below, stamping: stamping, into: &result)
        var rounds = 1
        while !frontier.isEmpty && frontier.count < 64 && rounds < 4 {
            var next: [ChildFolder] = []
            for folder in frontier {
                guard
                    let dir = openChild(
                        folder.name, in: folder.parent, path: folder.path, into: &result)
                else { continue }
                listed.append(dir)
                next += children(of: dir, relative: folder.path, stamping: stamping, into: &result)
            }
            frontier = next
            rounds += 1
        }
        let folders = frontier
        let parts = ParallelSlots<WorkspaceScan>(count: folders.count)
        DispatchQueue.concurrentPerform(iterations: folders.count) { i in
            var part = WorkspaceScan()
            if let dir = openChild(
                folders[i].name, in: folders[i].parent, path: folders[i].path, into: &part)
            {
                walkOpen(dir, relative: folders[i].path, stamping: stamping, into: &part)
            }
            parts.set(i, part)
        }
        for part in parts.values { result.append(part) }
        result.listedEverything = below.isEmpty
        result.stamped = stamping.trusted
        result.settleUnreadable()
        return result
    }

    /// Whether walks of this workspace can skip unchanged folders (its filesystem keeps
    /// folder times: see ``scan(knowing:trustingChangesBefore:prefetched:)``).
    public var skipsUnchangedFolders: Bool { Self.keepsFolderTimes(root) }

    /// The rules for stamping folders in this workspace (``StampRules``).
    func stampRules(trustBefore: Int64) -> StampRules {
        var info = stat()
        guard trustBefore > 0, lstat(root.isEmpty ? "/" : root, &info) == 0 else { return .none }
        return StampRules(
            device: UInt64(info.st_dev), trustBefore: trustBefore,
            trusted: Self.keepsFolderTimes(root))
    }

    /// Whether the filesystem at `path` is one whose folder ctimes move on every change of
    /// their entries, at a fine granularity (Linux's local filesystems). Network and FUSE
    /// filesystems, and anything unknown, are always listed in full.
    static func keepsFolderTimes(_ path: String) -> Bool {
        notes_keeps_folder_times(path.isEmpty ? "/" : path) != 0
    }

    /// A sub-folder found by the walk, to be opened relative to its open parent.
    private struct ChildFolder: Sendable {
        let parent: Int32
        let name: String
        let path: String
    }

    /// Lists the open folder `dir` (left open): its files go into `result`, its included
    /// sub-folders (sorted) are returned.
    private func children(
        of dir: OpaquePointer, relative: String, stamping: StampRules,
        into result: inout WorkspaceScan
    ) -> [ChildFolder] {
        var subfolders: [(name: String, path: String)] = []
        list(dir, relative: relative, stamping: stamping, into: &result, subfolders: &subfolders)
        let parent = dirfd(dir)
        return subfolders.map { ChildFolder(parent: parent, name: $0.name, path: $0.path) }
    }

    /// Opens the sub-folder `name` relative to its parent's descriptor with O_NOFOLLOW: a
    /// name swapped for a symlink (or anything but a folder) fails to open.
    func openChild(_ name: String, in parent: Int32) -> OpaquePointer? {
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard let dir = fdopendir(fd) else {
            close(fd)
            return nil
        }
        return dir
    }

    /// ``openChild(_:in:)``, noting `path` as unreadable when permission is what refused it.
    func openChild(_ name: String, in parent: Int32, path: String, into result: inout WorkspaceScan)
        -> OpaquePointer?
    {
        let dir = openChild(name, in: parent)
        if dir == nil, errno == EACCES || errno == EPERM { result.unreadableFolders.append(path) }
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
                result.files.append(ScannedFile(path: path, StatFacts(info)))
            } else if type != S_IFLNK, FileFormat(path: path).isIndexed {
                result.skipped.append(
                    Diagnostic(
                        path: path, code: .notRegularFile,
                        message: "not a regular file (FIFO, socket or device); skipped"))
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
        walkOpen(dir, relative: relative, stamping: .none, into: &result)
    }

    /// Opens the folder `relative` by path; nil when it is gone, not a folder, or was swapped
    /// for a symlink since its parent was read (its real path is then not the path meant).
    func openFolder(_ relative: String) -> OpaquePointer? {
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
    func walkOpen(
        _ dir: OpaquePointer, relative: String, stamping: StampRules,
        into result: inout WorkspaceScan
    ) {
        defer { closedir(dir) }
        var subfolders: [(name: String, path: String)] = []
        list(dir, relative: relative, stamping: stamping, into: &result, subfolders: &subfolders)
        let parent = dirfd(dir)
        for sub in subfolders {
            guard let child = openChild(sub.name, in: parent, path: sub.path, into: &result) else {
                continue
            }
            walkOpen(child, relative: sub.path, stamping: stamping, into: &result)
        }
    }

    /// Lists the open folder `dir`: files into `result`, included sub-folders (sorted) into
    /// `subfolders`, and the folder with its stamp into `result.listed` (its stat is taken
    /// before its entries are read: a change while listing moves the ctime past the stamp).
    ///
    /// Names come first (`readdir`, whose entry type tells folders and links apart without a
    /// `stat`), then the files are stat'ed: in chunks on every core when the folder is large
    /// (a flat folder of thousands of notes is common, and its stats are most of a walk),
    /// in order either way, so the walk's output does not depend on the schedule.
    func list(
        _ dir: OpaquePointer, relative: String, stamping: StampRules,
        into result: inout WorkspaceScan, subfolders found: inout [(name: String, path: String)]
    ) {
        let dirFD = dirfd(dir)
        var folderInfo = stat()
        let stamped = stamping.trusted && fstat(dirFD, &folderInfo) == 0
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
            let chunks = stride(from: 0, to: entries.count, by: Self.statChunk).map {
                $0..<min($0 + Self.statChunk, entries.count)
            }
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
        let firstFile = result.files.count
        var complete = true
        for part in parts {
            result.append(part.scan)
            subfolders += part.subfolders
            if !part.scan.conflictCopies.isEmpty || !part.scan.skipped.isEmpty { complete = false }
        }
        subfolders.sort { $0.path < $1.path }
        found += subfolders
        // A folder with entries the index does not hold (conflict copies, special files) is
        // listed on every walk, so they are reported every time.
        let stamp =
            stamped
            ? stamping.stamp(path: relative, StatFacts(folderInfo), complete: complete)
            : FolderStamp(path: relative, inode: 0, changeNanos: 0)
        result.listed.append(
            ListedFolder(
                stamp: stamp, files: firstFile..<result.files.count,
                subfolders: subfolders.map(\.path)))
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
            listing.scan.files.append(ScannedFile(path: entry.path, StatFacts(info)))
        } else if type != S_IFLNK, FileFormat(path: entry.path).isIndexed {
            listing.scan.skipped.append(
                Diagnostic(
                    path: entry.path, code: .notRegularFile,
                    message: "not a regular file (FIFO, socket or device); skipped"))
        }
    }
}
