import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A workspace folder opened as a descriptor by walking from the root one component at a
/// time with `O_NOFOLLOW`, so that no symlink is ever followed and a component swapped for
/// a symlink after a check cannot redirect a write (no check-then-open race). Every file
/// operation of the write path is relative to such a handle.
final class FolderHandle {
    let fd: Int32
    /// Workspace-relative path of the folder ("" for the root), for messages.
    let relative: String

    private init(fd: Int32, relative: String) {
        self.fd = fd
        self.relative = relative
    }

    deinit { close(fd) }

    /// Opens the folder `components` below `root`, creating missing folders when `create`.
    static func open(root: String, components: [String], create: Bool) throws(NotesError)
        -> FolderHandle
    {
        var fd = Glibc.open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw NotesError.system(
                errno, "cannot open the workspace folder (\(errorText(errno)))",
                hint: "check that it exists and is readable")
        }
        var walked: [String] = []
        for component in components {
            var next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if next < 0, errno == ENOENT, create {
                if WriteFaults.injected(.mkdir) || mkdirat(fd, component, 0o777) != 0,
                    errno != EEXIST
                {
                    let e = errno
                    close(fd)
                    throw NotesError.system(
                        e,
                        "cannot create folder \((walked + [component]).joined(separator: "/")) (\(errorText(e)))",
                        hint: "check permissions and free space")
                }
                next = openat(fd, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            let e = errno
            if next < 0 {
                var info = stat()
                let isLink =
                    fstatat(fd, component, &info, AT_SYMLINK_NOFOLLOW) == 0
                    && (info.st_mode & S_IFMT) == S_IFLNK
                close(fd)
                let here = (walked + [component]).joined(separator: "/")
                if isLink || e == ELOOP {
                    throw NotesError(
                        .outsideWorkspace,
                        "\(here) is a symbolic link; notes never writes through links",
                        hint: "use the real folder's path inside the workspace")
                }
                if e == ENOENT {
                    throw NotesError(
                        .notFound, "no folder \(here)",
                        hint: "check the path with list_files or `notes list`")
                }
                if e == ENOTDIR {
                    throw NotesError(
                        .invalidArgument, "\(here) is a file, not a folder",
                        hint: "choose another path")
                }
                throw NotesError.system(
                    e, "cannot open folder \(here) (\(errorText(e)))", hint: "check permissions")
            }
            close(fd)
            fd = next
            walked.append(component)
        }
        return FolderHandle(fd: fd, relative: walked.joined(separator: "/"))
    }

    /// Opens, creating them when missing, folders notes keeps its own files in (`.notes/…`,
    /// `Chats`), `components` below `root`. A file where one of them should be is an
    /// `io_error` to move out of the way: the caller chose no path.
    static func openOwn(root: String, components: [String]) throws(NotesError) -> FolderHandle {
        do {
            return try open(root: root, components: components, create: true)
        } catch  where error.code == .invalidArgument {
            throw NotesError(
                .ioError, error.message + ", where notes keeps its own files",
                hint: "move that file out of the way", details: ErrorDetails(errno: ENOTDIR))
        }
    }

    /// What is at `name` in this folder, without following a symlink.
    enum Entry {
        case missing
        case file(stat)
        case other(kind: String)
    }

    func entry(_ name: String) -> Entry {
        var info = stat()
        guard fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file(info)
        case S_IFLNK: return .other(kind: "a symbolic link")
        case S_IFDIR: return .other(kind: "a folder")
        default: return .other(kind: "a special file")
        }
    }

    /// The bytes of regular file `name` (nil when it does not exist), read without blocking
    /// or following a link, refused past `maxBytes`.
    func read(_ name: String, maxBytes: Int) throws(NotesError) -> (bytes: [UInt8], info: stat)? {
        let file = openat(fd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else {
            let e = errno
            if e == ENOENT { return nil }
            if e == ELOOP {
                throw NotesError(
                    .invalidArgument,
                    "\(path(name)) is a symbolic link; notes never writes through links",
                    hint: "use the path of the file it points to")
            }
            throw NotesError.system(
                e, "cannot read \(path(name)) (\(errorText(e)))",
                hint: "check the file's permissions")
        }
        defer { close(file) }
        var info = stat()
        guard fstat(file, &info) == 0 else {
            throw NotesError.system(errno, "cannot read \(path(name)) (\(errorText(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw NotesError(
                    .invalidArgument, "\(path(name)) is a folder, not a file",
                    hint: "give the path of a file in it")
            }
            throw NotesError(
                .invalidArgument, "\(path(name)) is not a regular file",
                hint: "only files can be written")
        }
        let size = Int(info.st_size)
        guard size <= maxBytes else {
            throw NotesError(
                .tooLarge, "\(path(name)) is \(size >> 20) MB, over the \(maxBytes >> 20) MB limit",
                hint: "raise limits.write_max_bytes in .notes/config.yml")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(descriptor: file, size: size)
        } catch {
            guard case .unreadable(let code) = error else {
                throw NotesError(.internal, "cannot read \(path(name)) (\(error))")
            }
            throw NotesError.system(
                code, "cannot read \(path(name)) (\(errorText(code)))",
                hint: "check the file and the disk", path: path(name))
        }
        return (bytes, info)
    }

    /// Prefix of the temporary files of atomic writes; the walk skips them (a dot-name) and
    /// ``removeLeftovers()`` deletes those whose writer died.
    static let temporaryPrefix = ".notes-tmp."

    /// Replaces (or creates) `name` with `bytes` so that a crash at any moment leaves the
    /// old or the new bytes (docs/spec.md §6.3): a temporary file in this folder, fsync, rename
    /// over the target, fsync the folder. `mode` is kept from the file being replaced.
    ///
    /// With `expecting` other than `.anything`, the rename happens only if `name` is still
    /// what the caller read (same inode, size and modification time, or still absent): a
    /// program that writes without notes' lock (an editor) between the read and the rename
    /// keeps its version, and this write fails with `stale_version`.
    ///
    /// `protocolSteps`: this is the document's replace in a change (``NoteStore``), so the
    /// `temporary-synced` and `renamed` steps of ``WriteFaults`` are here (not at the history
    /// object's or the intent's replace, which come first).
    ///
    /// `owner`: the user and group the file must keep (the file being replaced's): the
    /// temporary file is given them before the rename, and when it cannot be (only root
    /// may give a file away) nothing is written: a file that changed owner would lock its
    /// owner out of it.
    func replace(
        _ name: String, with bytes: [UInt8], mode: mode_t?, owner: (uid: uid_t, gid: gid_t)? = nil,
        expecting: Expectation = .anything,
        protocolSteps: Bool = false
    ) throws(NotesError) {
        let temporary =
            Self.temporaryPrefix
            + "\(getpid()).\(UInt64.random(in: 0...UInt64.max) & 0xFFFF_FFFF_FFFF)"
        let file =
            WriteFaults.injected(.open)
            ? -1
            : openat(
                fd, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode ?? 0o666)
        guard file >= 0 else { throw writeError(name, errno) }
        var ok = false
        defer { if !ok { unlinkat(fd, temporary, 0) } }
        var written = 0
        while written < bytes.count {
            let n =
                WriteFaults.injected(.write)
                ? -1
                : bytes.withUnsafeBytes {
                    Glibc.write(file, $0.baseAddress! + written, bytes.count - written)
                }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(file)
                throw writeError(name, e)
            }
            written += n
        }
        if let owner {
            var made = stat()
            if fstat(file, &made) == 0, made.st_uid != owner.uid || made.st_gid != owner.gid,
                fchown(file, owner.uid, owner.gid) != 0
            {
                let e = errno
                close(file)
                throw NotesError(
                    .ioError,
                    "cannot write \(path(name)) keeping its owner (uid \(owner.uid), group \(owner.gid)): \(errorText(e)); nothing was changed",
                    hint: "change it as its owner", cause: .leftUnchanged)
            }
        }
        if let mode, fchmod(file, mode & 0o7777) != 0 {
            let e = errno
            close(file)
            throw writeError(name, e)
        }
        if WriteFaults.injected(.fsync) || fsync(file) != 0 {
            let e = errno
            close(file)
            throw writeError(name, e)
        }
        if close(file) != 0 { throw writeError(name, errno) }
        if protocolSteps { WriteFaults.reach(.temporarySynced) }
        if !isAsExpected(name, expecting) {
            throw NotesError(
                .staleVersion,
                "\(path(name)) was changed by another program while notes was writing it; nothing was changed",
                hint: "read it again and retry", cause: .leftUnchanged)
        }
        guard !WriteFaults.injected(.rename), renameat(fd, temporary, fd, name) == 0 else {
            throw writeError(name, errno)
        }
        ok = true
        if protocolSteps { WriteFaults.reach(.renamed) }
        try sync()
    }

    /// What a guarded ``replace(_:with:mode:expecting:)`` expects to find at the name.
    enum Expectation {
        case anything
        case absent
        case file(stat)

        init(_ read: stat?) { self = read.map { .file($0) } ?? .absent }
    }

    private func isAsExpected(_ name: String, _ expectation: Expectation) -> Bool {
        var now = stat()
        let exists = fstatat(fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0
        switch expectation {
        case .anything: return true
        case .absent: return !exists
        case .file(let read):
            return exists && now.st_ino == read.st_ino && now.st_dev == read.st_dev
                && now.st_size == read.st_size
                && now.st_mtim.tv_sec == read.st_mtim.tv_sec
                && now.st_mtim.tv_nsec == read.st_mtim.tv_nsec
        }
    }

    /// Flushes this folder's entries (a rename is durable only once its folder is synced).
    /// Runs after the change is visible: callers say so (``NoteStore/madeButFailed(_:_:)``).
    func sync() throws(NotesError) {
        if WriteFaults.injected(.fsync) || fsync(fd) != 0, errno != EINVAL {
            let folder = relative.isEmpty ? "the workspace folder" : relative
            throw NotesError.system(
                errno,
                "\(folder) could not be flushed to disk (\(errorText(errno))); a power loss could still undo the change",
                hint: "check the disk")
        }
    }

    /// Removes file `name`.
    func remove(_ name: String) throws(NotesError) {
        guard !WriteFaults.injected(.unlink), unlinkat(fd, name, 0) == 0 else {
            throw writeError(name, errno)
        }
        try sync()
    }

    /// Renames `name` to `newName` in `target`; fails if `newName` exists.
    func move(_ name: String, to target: FolderHandle, as newName: String) throws(NotesError) {
        if case .missing = target.entry(newName) {
        } else {
            throw NotesError(
                .invalidArgument, "\(target.path(newName)) already exists",
                hint: "choose a new name or delete it first")
        }
        guard !WriteFaults.injected(.rename), renameat(fd, name, target.fd, newName) == 0 else {
            throw writeError(name, errno)
        }
        try sync()
        if target !== self { try target.sync() }
    }

    /// Takes from this folder the permission bits `mode` does not allow (never adds any),
    /// and gives it to `owner` when it is root's own folder (best effort: a folder of
    /// another user's is left as it is).
    func narrow(to mode: mode_t, owner: (uid: uid_t, gid: gid_t)?) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        if let owner, info.st_uid == 0, info.st_uid != owner.uid {
            fchown(fd, owner.uid, owner.gid)
        }
        if info.st_mode & 0o777 & ~mode != 0 { fchmod(fd, info.st_mode & 0o777 & mode) }
    }

    /// The names in this folder.
    func names() -> [String] {
        let copy = dup(fd)  // fdopendir takes ownership of the descriptor it is given
        guard copy >= 0, let dir = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(dir) }
        // The copy shares the read position with `fd`: start from the top every time.
        rewinddir(dir)
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Deletes temporary files left by writers that died (their PID is in the name);
    /// returns their names.
    @discardableResult
    func removeLeftovers() -> [String] {
        let stale = names().filter(Self.isLeftover)
        return stale.filter { unlinkat(fd, $0, 0) == 0 }
    }

    /// Whether `name` is the temporary file of a writer that is no longer running: never
    /// this process's, nor one whose process exists (or cannot be asked about).
    static func isLeftover(_ name: String) -> Bool {
        guard name.hasPrefix(temporaryPrefix) else { return false }
        let parts = name.dropFirst(temporaryPrefix.count).split(separator: ".")
        guard let pid = parts.first.flatMap({ pid_t($0) }), pid > 0 else { return false }
        return pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Whether `name` here is a folder (not following a link).
    func isFolder(_ name: String) -> Bool {
        var info = stat()
        return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0
            && info.st_mode & S_IFMT == S_IFDIR
    }

    func path(_ name: String) -> String { relative.isEmpty ? name : relative + "/" + name }

    private func writeError(_ name: String, _ code: Int32) -> NotesError {
        let what = path(name)
        let details = ErrorDetails(path: what, errno: code)
        switch code {
        case ENOSPC, EDQUOT:
            return NotesError(
                .ioError, "no space left to write \(what); nothing was changed",
                hint: "free some disk space and retry", details: details, cause: .leftUnchanged)
        case EACCES, EPERM, EROFS:
            return NotesError(
                .ioError, "permission denied writing \(what); nothing was changed",
                hint: "check the folder's permissions", details: details, cause: .leftUnchanged)
        default:
            return NotesError(
                .internal, "cannot write \(what) (\(errorText(code))); nothing was changed",
                hint: "retry; if it persists check the disk", details: details,
                cause: .leftUnchanged)
        }
    }
}

/// The text of an errno value.
func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
