import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock every `notes` process of a workspace takes around a write (docs/spec.md §6.3), so the
/// version check and the write are one step for the CLI, the MCP server and the agent.
///
/// An advisory `flock` on `.notes/lock`: the kernel releases it when its holder exits, even
/// by `kill -9`, so a dead holder never deadlocks anyone. The holder writes its pid, command
/// and start time into the file (``LockWait``), so a waiter that gives up (after
/// `NOTES_LOCK_TIMEOUT`, 30 s) names it: a stopped holder keeps the lock. Two acquisitions
/// in one process exclude each other too (each opens its own file description), so threads
/// are covered.
final class WorkspaceLock {
    private let fd: Int32

    /// Waits up to `timeout` seconds for the lock.
    init(stateDirectory: String, timeout: Double = LockWait.timeout) throws(NotesError) {
        let path = stateDirectory + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw NotesError.system(
                errno, "cannot open the workspace lock \(path) (\(errorText(errno)))",
                hint: "check the permissions of .notes/")
        }
        var failure: Int32 = 0
        let taken = LockWait.poll(timeout: timeout) {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
            if errno != EWOULDBLOCK && errno != EINTR {
                failure = errno
                return true
            }
            return false
        }
        if failure != 0 {
            close(fd)
            throw NotesError.system(failure, "cannot lock the workspace (\(errorText(failure)))")
        }
        guard taken else {
            let holder = LockWait.describeHolder(fd)
            close(fd)
            throw LockWait.busy("the workspace lock", holder: holder, waited: timeout)
        }
        self.fd = fd
        LockWait.recordHolder(fd)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
