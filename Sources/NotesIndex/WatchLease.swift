import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#endif

/// `notes watch`'s claim on an index: an exclusive `flock` on `watch.lock` in the index
/// folder, released by the kernel when the watcher exits however it exits. It holds
/// `PID MODE CONFIGSTAMP`: only an inotify watcher writes mode `inotify`, and readers skip
/// their walk only for that mode under the settings they loaded themselves, and only while
/// the watcher runs (not stopped).
public final class WatchLease {
    static let fileName = "watch.lock"
    private let fd: Int32

    init(path: String, mode: String, configStamp: String) throws(NotesError) {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw NotesError.system(
                errno, "cannot open \(path): \(String(cString: strerror(errno)))",
                hint: "check that the index folder is writable")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var holder = [UInt8](repeating: 0, count: 64)
            let n = pread(fd, &holder, holder.count, 0)
            let pid =
                n > 0
                ? String(decoding: holder[..<n], as: UTF8.self).split(separator: " ").first.map(
                    String.init) ?? "?" : "?"
            close(fd)
            throw NotesError(
                .invalidArgument,
                "another notes watch (pid \(pid)) is already keeping this index fresh",
                hint: "stop it first, or let it run")
        }
        self.fd = fd
        update(mode: mode, configStamp: configStamp)
    }

    /// Says which mode and settings the watcher now runs with (after a config edit).
    public func update(mode: String, configStamp: String) {
        let text = Array("\(getpid()) \(mode) \(configStamp)\n".utf8)
        // Written whole then cut: a reader sees the old text, or a longer one it rejects.
        _ = pwrite(fd, text, text.count, 0)
        _ = ftruncate(fd, off_t(text.count))
    }

    deinit {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Whether an inotify watcher holds the lease at `path` under the settings `configStamp`.
    static func isHeld(path: String, configStamp: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        var text = [UInt8](repeating: 0, count: 256)
        let n = pread(fd, &text, text.count, 0)
        guard n > 0 else { return false }
        let fields = String(decoding: text[..<n], as: UTF8.self).split(
            whereSeparator: \.isWhitespace)
        // A stopped watcher (SIGSTOP, Ctrl-Z) keeps its lock but refreshes nothing: readers
        // that trusted it would answer from a stale index for as long as it stays stopped.
        return fields.count == 3 && fields[1] == "inotify" && fields[2] == configStamp
            && LockWait.processState(String(fields[0])) != "stopped"
    }
}
