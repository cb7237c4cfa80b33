import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to standard output and standard error that never trap (issue 34 item 4).
///
/// `FileHandle.write` raises a fatal error on EPIPE, ENOSPC (`>/dev/full`) and EBADF (`>&-`):
/// the process died with SIGILL after its work was done, so a script saw a failed change
/// that had happened. Here each stream is written with `write(2)`; the first error is
/// remembered, later writes to that stream are dropped, and the command decides its exit
/// status at the end (``NotesCommand``: docs/decisions.md D186).
public enum StandardStreams {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var failures: [Int32: Int32] = [:]
    nonisolated(unsafe) private static var closedAtStart: Set<Int32> = []

    /// Call first thing: SIGPIPE becomes EPIPE (a reader that went away no longer kills the
    /// process mid-work), and a standard descriptor closed by the caller (`>&-`) is opened on
    /// `/dev/null`, so no file this process opens can become fd 1 or 2 and receive its output.
    /// Writes to such a stream then fail as EBADF.
    public static func prepare() {
        signal(SIGPIPE, SIG_IGN)
        for fd: Int32 in [0, 1, 2] where fcntl(fd, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != fd {
                dup2(null, fd)
                close(null)
            }
            closedAtStart.insert(fd)
        }
    }

    /// Sends the library's notices (``Notices``) to standard error, one line each: what the
    /// `notes` and `notes-mcp` executables do with them.
    public static func sendNoticesToStandardError() {
        Notices.observe { notice in writeError(notice.message + "\n") }
    }

    /// Writes `text` to standard output; false when it could not be written (whole).
    @discardableResult
    public static func writeOutput(_ text: String) -> Bool {
        write(STDOUT_FILENO, Array(text.utf8))
    }

    /// Writes `text` to standard error; false when it could not be written (whole).
    @discardableResult
    public static func writeError(_ text: String) -> Bool { write(STDERR_FILENO, Array(text.utf8)) }

    @discardableResult
    public static func writeOutput(_ data: Data) -> Bool { write(STDOUT_FILENO, Array(data)) }

    /// The first error met writing standard output (EPIPE, ENOSPC, EBADF, …), or nil.
    public static var outputFailure: Int32? { failure(STDOUT_FILENO) }
    /// The first error met writing standard error, or nil.
    public static var errorFailure: Int32? { failure(STDERR_FILENO) }

    static func failure(_ fd: Int32) -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        return failures[fd]
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if failures[fd] != nil { return false }
        if closedAtStart.contains(fd) {
            failures[fd] = EBADF
            return false
        }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.write(fd, $0.baseAddress! + written, bytes.count - written)
            }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                failures[fd] = n < 0 ? errno : EIO
                return false
            }
            written += n
        }
        return true
    }
}
