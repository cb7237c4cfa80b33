import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The lock every `notes` process of a workspace takes around a write (SPEC §6.3), so the
/// version check and the write are one step for the CLI, the MCP server and the agent.
///
/// An advisory `flock` on `.notes/lock`: the kernel releases it when its holder exits, even
/// by `kill -9`, so a dead holder never deadlocks anyone. The holder's PID is written into
/// the file for messages. Two acquisitions in one process exclude each other too (each
/// opens its own file description), so threads are covered.
final class WorkspaceLock {
    private let fd: Int32

    /// Waits up to `timeout` seconds for the lock.
    init(stateDirectory: String, timeout: Double = 30) throws(NotesError) {
        let path = stateDirectory + "/lock"
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw NotesError(.internal, "cannot open the workspace lock \(path) (\(errorText(errno)))", hint: "check the permissions of .notes/")
        }
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 1000
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let e = errno
                close(fd)
                throw NotesError(.internal, "cannot lock the workspace (\(errorText(e)))")
            }
            if Date() > deadline {
                var holder = [UInt8](repeating: 0, count: 32)
                let n = pread(fd, &holder, holder.count, 0)
                let pid = n > 0 ? String(decoding: holder[..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : "?"
                close(fd)
                throw NotesError(.internal, "another notes process (pid \(pid)) has held the workspace lock for \(Int(timeout)) s", hint: "wait for it to finish, then retry")
            }
            usleep(pause)
            pause = min(pause * 2, 50_000)
        }
        self.fd = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
