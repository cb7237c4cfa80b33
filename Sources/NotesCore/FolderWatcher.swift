#if canImport(Glibc)
    import Glibc

    /// Which workspace paths changed, from Linux inotify (docs/spec.md §4.3: `notes watch`, and the MCP
    /// server's freshness check). Every included folder is watched; a folder created or moved
    /// in is watched as it appears and reported whole, so files written into it before its
    /// watch existed are not missed. A kernel queue overflow is reported as such: the caller
    /// then rescans everything.
    ///
    /// Not thread-safe: one owner reads it.
    public final class FolderWatcher {
        /// What one read of the queue found.
        public enum Changes: Equatable, Sendable {
            /// Workspace-relative paths (files or folders) that were created, written, deleted
            /// or moved.
            case paths(Set<String>)
            /// The kernel dropped events: only a full rescan is safe.
            case overflow
        }

        /// The inotify descriptor, for `poll` alongside other descriptors.
        public let fileDescriptor: Int32
        private let root: String
        private let scanner: FileScanner
        /// Watch descriptor → workspace-relative folder ("" is the root).
        private var folders: [Int32: String] = [:]
        private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        /// Buffers of events one ``read()`` takes at most (each up to 256 KB of events).
        static let maxReadsPerCall = 4

        private static let mask: UInt32 =
            UInt32(
                IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO
                    | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF) | UInt32(IN_ONLYDIR)
            | UInt32(IN_DONT_FOLLOW)
            | UInt32(IN_EXCL_UNLINK)

        /// Watches every included folder of `workspace`. Throws when inotify is unavailable or
        /// the per-user watch limit (`fs.inotify.max_user_watches`) is reached; the caller falls
        /// back to polling.
        public init(workspace: Workspace) throws(NotesError) {
            root = workspace.root
            scanner = FileScanner(workspace: workspace)
            let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard fd >= 0 else {
                let code = errno
                throw NotesError.system(
                    code, "inotify is not available: \(String(cString: strerror(code)))",
                    hint: "use notes watch --poll")
            }
            fileDescriptor = fd
            do {
                try watchTree("")
            } catch {
                close(fd)
                throw error
            }
        }

        deinit { close(fileDescriptor) }

        /// How many folders are watched.
        public var folderCount: Int { folders.count }

        /// Waits up to `milliseconds` (-1: forever) for events on the watcher or on `other`
        /// (e.g. a signal pipe). Returns whether the watcher has events.
        public func wait(milliseconds: Int32, alsoWatching other: Int32? = nil) -> Bool {
            var fds = [pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)]
            if let other { fds.append(pollfd(fd: other, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            return ready > 0 && fds[0].revents & Int16(POLLIN) != 0
        }

        /// Reads the queued events without blocking; nil when there were none. Bounded: when
        /// events keep arriving faster than they are read (a folder renamed back and forth
        /// without pause), it stops after ``maxReadsPerCall`` buffers and reports an overflow,
        /// so the caller refreshes everything once instead of waiting for the stream to end.
        public func read() -> Changes? {
            var changed = Set<String>()
            var overflow = false
            var sawAny = false
            var reads = 0
            while true {
                if reads == Self.maxReadsPerCall {
                    overflow = true
                    break
                }
                reads += 1
                let count = buffer.withUnsafeMutableBytes {
                    Glibc.read(fileDescriptor, $0.baseAddress, $0.count)
                }
                if count <= 0 { break }
                sawAny = true
                buffer.withUnsafeBytes { raw in
                    var offset = 0
                    let header = MemoryLayout<inotify_event>.size
                    while offset + header <= count {
                        let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                        let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                        let length = Int(
                            raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        var name = ""
                        if length > 0 {
                            let start = offset + header
                            let bytes = UnsafeRawBufferPointer(
                                rebasing: raw[start..<min(start + length, count)])
                            name = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                        }
                        offset += header + length
                        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                            overflow = true
                            continue
                        }
                        if mask & UInt32(IN_IGNORED) != 0 {
                            folders[wd] = nil
                            continue
                        }
                        guard let folder = folders[wd] else { continue }
                        let path =
                            name.isEmpty ? folder : (folder.isEmpty ? name : folder + "/" + name)
                        if mask & (UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)) != 0 {
                            if !folder.isEmpty { changed.insert(folder) }
                            continue
                        }
                        if path.isEmpty { continue }
                        changed.insert(path)
                        if mask & UInt32(IN_ISDIR) != 0,
                            mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0
                        {
                            // A new folder: watch it (and what is already inside it).
                            if (try? watchTree(path)) == nil { overflow = true }
                        }
                    }
                }
            }
            if overflow { return .overflow }
            return sawAny && !changed.isEmpty ? .paths(changed) : nil
        }

        /// Adds watches for `relative` and every included folder below it.
        private func watchTree(_ relative: String) throws(NotesError) {
            guard relative.isEmpty || scanner.isIncluded(relative) else { return }
            let full = relative.isEmpty ? root : root + "/" + relative
            let wd = inotify_add_watch(fileDescriptor, full, Self.mask)
            if wd < 0 {
                let code = errno
                // gone already, or not ours to read
                if code == ENOENT || code == ENOTDIR || code == EACCES { return }
                throw NotesError.system(
                    code,
                    code == ENOSPC
                        ? "too many folders to watch (fs.inotify.max_user_watches)"
                        : "cannot watch \(full): \(String(cString: strerror(code)))",
                    hint: "raise fs.inotify.max_user_watches, or use notes watch --poll")
            }
            folders[wd] = relative
            guard let dir = opendir(full) else { return }
            defer { closedir(dir) }
            var subfolders: [String] = []
            while let entry = readdir(dir) {
                guard
                    entry.pointee.d_type == UInt8(DT_DIR)
                        || entry.pointee.d_type == UInt8(DT_UNKNOWN)
                else { continue }
                let name = withUnsafePointer(to: entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                let path = relative.isEmpty ? name : relative + "/" + name
                if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    guard lstat(root + "/" + path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR
                    else { continue }
                }
                if scanner.rules.verdict(name: name, path: path) == .include {
                    subfolders.append(path)
                }
            }
            for sub in subfolders { try watchTree(sub) }
        }
    }
#endif
