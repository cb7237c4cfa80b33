import CSystemCalls

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
    public static func read(path: String, maxBytes: Int, checkingLocation: Bool = false)
        throws(Failure) -> [UInt8]
    {
        var fd: Int32 = -1
        var refusedLinks = false
        if checkingLocation && NoSymlinkOpen.isAvailable {
            fd = notes_open_no_symlinks(path, O_RDONLY | O_NONBLOCK)
            if fd >= 0 || !NoSymlinkOpen.isUnsupported(errno) {
                refusedLinks = true
            } else {
                // EPERM: a seccomp filter, maybe per call
                if errno != EPERM { NoSymlinkOpen.isAvailable = false }
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
            // a link, a socket, a device
            if e == ELOOP || e == ENXIO || e == ENODEV { throw .notRegularFile }
            throw .unreadable(errno: e)
        }
        defer { close(fd) }
        if checkingLocation, !refusedLinks, !FileSystem.descriptor(fd, isAt: path) {
            throw .notFound
        }
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
            let n = bytes.withUnsafeMutableBytes {
                Glibc.read(fd, $0.baseAddress! + total, size - total)
            }
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
