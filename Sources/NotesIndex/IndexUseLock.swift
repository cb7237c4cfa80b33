import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who has the index database open: every open ``NoteIndex`` holds a shared `flock` on
/// `index.lock` in the index folder for its lifetime. A first build takes it exclusively
/// (only when nobody else holds it) to swap a freshly built database file into place, so
/// no process ever has the old file open across the swap: SQLite must not meet a `-wal`
/// that belongs to another database file. The kernel drops the lock when a process exits,
/// however it exits.
///
/// Every wait here is bounded (``LockWait/timeout``, `NOTES_LOCK_TIMEOUT`): a build stopped
/// with SIGSTOP keeps its exclusive hold, and a waiter then says who holds it (the builder
/// writes its pid, command and start time into the lock file) and gives up with `busy`.
final class IndexUseLock: Sendable {
    static let fileName = "index.lock"
    /// -1 when the folder does not let us create the lock file (then no fresh builds).
    private let fd: Int32

    /// false while a build elsewhere held the lock at start and this process chose not to
    /// wait then (`waiting: false`, the MCP server); ``ensureShared()`` waits at first use.
    private let held = Locked(true)

    /// No hold at all: the index folder cannot be used (``IndexFolder``), so nothing is
    /// created in it.
    init(unusable: Void) {
        fd = -1
    }

    init(directory: String, waiting: Bool = true) throws(NotesError) {
        let fd = open(
            directory + "/" + Self.fileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        self.fd = fd
        guard fd >= 0 else { return }
        if flock(fd, LOCK_SH | LOCK_NB) != 0 {
            if !waiting {
                held.withLock { $0 = false }
                return
            }
            do {
                try waitShared()
            } catch {
                close(fd)
                throw error
            }
        }
    }

    /// Waits (bounded) for a shared hold, saying once whom it waits for.
    private func waitShared() throws(NotesError) {
        let taken = LockWait.poll(onFirstWait: {
            Notices.post(
                .waiting,
                "notes: waiting for another notes process to finish building the search index (\(LockWait.describeHolder(fd)))…"
            )
        }) { flock(fd, LOCK_SH | LOCK_NB) == 0 }
        guard taken else {
            throw LockWait.busy(
                "the search index (building it)", holder: LockWait.describeHolder(fd),
                waited: LockWait.timeout)
        }
    }

    /// Whether this process holds the lock (then no fresh build is running elsewhere).
    var isHeld: Bool { fd >= 0 && held.withLock { $0 } }

    /// Whether the shared hold is still to be taken (``init(directory:waiting:)``).
    var isPending: Bool { fd >= 0 && !held.withLock { $0 } }

    /// Takes the shared hold a non-waiting start skipped: waits (bounded) for the build
    /// elsewhere to finish, or throws `busy` naming it. One comparison once held.
    func ensureShared() throws(NotesError) {
        guard isPending else { return }
        let outcome = held.withLock { (isHeld: inout Bool) -> NotesError? in
            if isHeld { return nil }
            if flock(fd, LOCK_SH | LOCK_NB) == 0 {
                isHeld = true
                return nil
            }
            if case .failure(let error) = Result(catching: { () throws(NotesError) in
                try waitShared()
            }) {
                return error
            }
            isHeld = true
            return nil
        }
        if let outcome { throw outcome }
    }

    deinit {
        if fd >= 0 { close(fd) }
    }

    /// What ``tryExclusive()`` got.
    enum Upgrade { case exclusive, othersHaveItOpen, anotherProcessBuilt }

    /// Becomes the only user, if nobody else has the index open; never waits for that.
    /// Otherwise the shared hold is taken again (Linux drops it when an upgrade fails),
    /// which waits (bounded) if another process took the exclusive lock in between to build.
    func tryExclusive() throws(NotesError) -> Upgrade {
        guard fd >= 0 else { return .othersHaveItOpen }
        try ensureShared()
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            LockWait.recordHolder(fd)
            return .exclusive
        }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 { return .othersHaveItOpen }
        try waitShared()
        return .anotherProcessBuilt
    }

    /// Back to a shared hold after an exclusive one (the downgrade never waits on others:
    /// nobody else holds the lock while this process has it exclusively).
    func share() {
        guard fd >= 0 else { return }
        _ = LockWait.poll { flock(fd, LOCK_SH | LOCK_NB) == 0 }
    }
}
