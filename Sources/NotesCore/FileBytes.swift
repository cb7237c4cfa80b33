import CNoFollowOpen
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file's bytes without ever blocking on a FIFO or device, following a final
/// symlink, or reading past a size cap.
public enum FileBytes {
    /// Why a read failed.
    public enum Failure: Error, Equatable, Sendable {
        case notFound
        case notRegularFile
        case tooLarge(size: Int)
        case unreadable(errno: Int32)
    }

    /// The whole content of the regular file at `path` (absolute).
    ///
    /// With `checkingLocation`, `path` must be canonical (a workspace root plus a walked
    /// path): no component may be a symlink, so a folder swapped for a symlink between a
    /// check and this open (a TOCTOU race) reads nothing (`.notFound`) instead of what the
    /// link points to. Linux's `openat2` refuses such a path in the kernel (one system
    /// call); where it is missing, the file is opened with O_NOFOLLOW and the descriptor's
    /// real path compared with `path` afterwards (`/proc/self/fd`).
    public static func read(path: String, maxBytes: Int, checkingLocation: Bool = false) throws(Failure) -> [UInt8] {
        var fd: Int32 = -1
        var refusedLinks = false
        if checkingLocation && NoSymlinkOpen.isAvailable {
            fd = notes_open_no_symlinks(path, O_RDONLY | O_NONBLOCK)
            if fd >= 0 || !NoSymlinkOpen.isUnsupported(errno) {
                refusedLinks = true
            } else {
                if errno != EPERM { NoSymlinkOpen.isAvailable = false }  // EPERM: a seccomp filter, maybe per call
            }
        }
        if !refusedLinks { fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { throw .notFound }
            if e == ELOOP && refusedLinks {
                // The file itself is a link (not a regular file), or a folder on the way is
                // (what was walked is not there any more).
                var info = stat()
                let isLink = lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
                throw isLink ? .notRegularFile : .notFound
            }
            if e == ELOOP || e == ENXIO || e == ENODEV { throw .notRegularFile }  // a link, a socket, a device
            throw .unreadable(errno: e)
        }
        defer { close(fd) }
        if checkingLocation, !refusedLinks, !FileSystem.descriptor(fd, isAt: path) { throw .notFound }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(errno: errno) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notRegularFile }
        let size = Int(info.st_size)
        guard size <= maxBytes else { throw .tooLarge(size: size) }
        return try read(descriptor: fd, size: size)
    }

    /// Reads up to `size` bytes from the open file `fd` (fewer if it shrank meanwhile).
    public static func read(descriptor fd: Int32, size: Int) throws(Failure) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        var total = 0
        while total < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, size - total) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .unreadable(errno: errno)
            }
            if n == 0 { break }  // the file shrank while we read it
            total += n
        }
        if total < size { bytes.removeSubrange(total...) }
        return bytes
    }
}

/// Whether this process can open a path refusing symlinks in the kernel (`openat2`).
enum NoSymlinkOpen {
    /// Cleared the first time the kernel says it has no `openat2` (then every read checks
    /// the descriptor's path instead). Tests clear it to run the fallback.
    nonisolated(unsafe) static var isAvailable = true

    /// Errors that mean "no `openat2` here", not "this path cannot be opened".
    static func isUnsupported(_ code: Int32) -> Bool {
        code == ENOSYS || code == EPERM || code == EINVAL || code == E2BIG
    }
}

/// Small POSIX facts used across the package.
public enum FileSystem {
    /// Removes the files in `directory` named `prefix` + a process id (+ optionally `.`
    /// and more) whose process no longer runs: temporary files a killed process left
    /// between creating and renaming or removing them. This process's own are kept.
    public static func removeFilesOfEndedProcesses(in directory: String, prefix: String) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasPrefix(prefix), let digits = name.dropFirst(prefix.count).split(separator: ".", omittingEmptySubsequences: false).first,
                  let pid = Int32(digits), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
        }
    }

    /// The canonical absolute path of an existing file or folder, symlinks resolved.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the open descriptor `fd` is the file or folder at `path` (an absolute real
    /// path), so that nothing reached through a swapped-in symlink is used. A file replaced
    /// by an atomic rename after it was opened still counts: Linux then names it
    /// "`path` (deleted)", and its bytes are the previous version of `path` (a reader racing
    /// a writer gets the old or the new version, never "not found").
    public static func descriptor(_ fd: Int32, isAt path: String) -> Bool {
        guard let actual = descriptorPath(fd) else { return false }
        return actual == path || actual == path + " (deleted)"
    }

    /// Where the kernel says open descriptor `fd` is (symlinks resolved); nil when it
    /// cannot say. A file deleted since it was opened gets a " (deleted)" suffix on Linux.
    public static func descriptorPath(_ fd: Int32) -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
        var buffer = [CChar](repeating: 0, count: Int(MAXPATHLEN) + 1)
        guard fcntl(fd, F_GETPATH, &buffer) == 0 else { return nil }
        return String(cString: buffer)
        #endif
    }

    /// Whether `path` is an existing folder (symlinks followed).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether anything exists at `path` (symlinks not followed).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The current working directory.
    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Creates a folder and its parents (mode 0755); succeeds if it exists.
    public static func makeDirectories(_ path: String) throws(NotesError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw NotesError.system(errno, "cannot create folder \(current): \(String(cString: strerror(errno)))")
            }
        }
    }
}
