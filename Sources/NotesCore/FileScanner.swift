import CSystemCalls
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
    /// The folders this walk listed, with their stamps for the next walk.
    public var listed: [ListedFolder] = []
    /// Stamped folders that are gone (or no longer folders): their stamps, and every stamp
    /// below them, are to be dropped.
    public var goneFolders: [String] = []
    /// Stamped folders this walk did not list because nothing was added, removed or
    /// renamed in them (their known files were stat'ed by path instead).
    public var foldersSkipped = 0
    /// Whether this walk listed every folder of the workspace (a full walk): stamps of
    /// folders it did not list are stale.
    public var listedEverything = false
    /// Whether the folders were stamped (the filesystem keeps folder times): else the
    /// stamps in `listed` are placeholders, not to be recorded.
    public var stamped = false
    /// Whether `files` are exactly the known files given to ``FileScanner/scan(knowing:trustingChangesBefore:)``,
    /// in that order, with fresh stat facts: the refresh then compares them pairwise.
    public var matchesKnownFiles = false
    /// Folders this walk could not open for want of permission (a mode-000 folder): their
    /// files are not seen. ``settleUnreadable()`` reports them.
    public var unreadableFolders: [String] = []

    /// Reports the unreadable folders as diagnostics (`notes status`, `notes list`) and
    /// leaves their parents unstamped, so every walk tries them again and says so again.
    mutating func settleUnreadable() {
        guard !unreadableFolders.isEmpty else { return }
        let parents = Set(unreadableFolders.map(FileScanner.parentPath))
        for i in listed.indices where parents.contains(listed[i].stamp.path) {
            listed[i].stamp.changeNanos = 0
        }
        skipped += unreadableFolders.sorted().map {
            Diagnostic(
                path: $0, code: .unreadable,
                message:
                    "folder cannot be read (permission denied); its files are not listed or searched"
            )
        }
        unreadableFolders = []
    }

    /// Appends `other`, keeping its listed folders' file ranges pointing at its files.
    mutating func append(_ other: WorkspaceScan) {
        let offset = files.count
        files += other.files
        conflictCopies += other.conflictCopies
        skipped += other.skipped
        listed += other.listed.map {
            var folder = $0
            folder.files = (folder.files.lowerBound + offset)..<(folder.files.upperBound + offset)
            return folder
        }
        goneFolders += other.goneFolders
        foldersSkipped += other.foldersSkipped
        unreadableFolders += other.unreadableFolders
    }
}

/// What one walk saw of a folder, so that the next walk can skip listing it: a folder's
/// change time (ctime) moves whenever an entry is added to it, removed or renamed, and no
/// program can set it back. Files changed in place are caught by their own stat, which
/// every walk still does (docs/spec.md §4.3).
public struct FolderStamp: Hashable, Sendable {
    /// Workspace-relative path; "" is the workspace itself.
    public var path: String
    public var inode: UInt64
    /// The folder's ctime in nanoseconds, or 0: list it again next time (it changed too
    /// recently to trust, holds entries the index does not record such as conflict copies,
    /// or lives on a filesystem whose folder times are not trusted).
    public var changeNanos: Int64

    public init(path: String, inode: UInt64, changeNanos: Int64) {
        self.path = path
        self.inode = inode
        self.changeNanos = changeNanos
    }
}

/// A folder a walk listed: its stamp, and what the listing found in it. A stamp may only be
/// kept once the index holds every one of those entries.
public struct ListedFolder: Sendable {
    public var stamp: FolderStamp
    /// The folder's own files, as a range of ``WorkspaceScan/files``.
    public var files: Range<Int>
    /// Its included sub-folders (workspace-relative paths).
    public var subfolders: [String]
}

/// When a listed folder's ctime may be kept as its stamp (see ``FolderStamp``).
struct StampRules: Sendable {
    /// The workspace's device: a folder on another filesystem mounted inside is always listed.
    let device: UInt64
    /// Folders changed at or after this instant (ns since the epoch) are stamped 0: another
    /// change within the filesystem's timestamp granularity would leave the same ctime.
    let trustBefore: Int64
    /// Whether the filesystem keeps folder ctimes as Linux's local filesystems do.
    let trusted: Bool

    /// No stamps at all (a scan for a few paths, or an untrusted filesystem).
    static let none = StampRules(device: 0, trustBefore: 0, trusted: false)

    /// The stamp to record for a folder with `facts` (from `fstat` before it was listed).
    func stamp(path: String, _ facts: StatFacts, complete: Bool) -> FolderStamp {
        let change = facts.ctimeNanos
        let kept =
            trusted && complete && facts.device == device && change > 0 && change < trustBefore
        return FolderStamp(path: path, inode: facts.inode, changeNanos: kept ? change : 0)
    }

    /// Whether the folder `facts` (an `lstat` now) is the folder `stamp` recorded, unchanged.
    func unchanged(_ facts: StatFacts, since stamp: FolderStamp) -> Bool {
        trusted && stamp.changeNanos != 0 && facts.isFolder && facts.inode == stamp.inode
            && facts.ctimeNanos == stamp.changeNanos && facts.device == device
    }
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
