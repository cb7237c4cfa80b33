import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One process at a time embeds an index's passages: two that did would run the model on
/// the same sections side by side and throw the slower one's vectors away. The embedder holds an
/// exclusive `flock` on `embed.lock` in the index folder, with its holder record
/// (``LockWait``); the kernel releases it when the process exits, however it exits.
///
/// A background pass (``NoteIndex/embedPendingInBackground(with:shouldStop:)``) takes the
/// lease only when it is free, and gives it up after its current batch as soon as a command
/// waits for it: the waiter holds a shared `flock` on `embed.wanted` meanwhile. A command
/// (`notes index`) waits for it, bounded by ``LockWait/timeout``.
final class EmbeddingLease {
    static let fileName = "embed.lock"
    static let wantedFileName = "embed.wanted"
    /// -1 when the index folder does not let us create the lock file: no vectors can be
    /// stored there either, and the pass fails on its first write.
    private let fd: Int32
    private let wantedFD: Int32

    private init(fd: Int32, wantedFD: Int32) {
        self.fd = fd
        self.wantedFD = wantedFD
        if fd >= 0 { LockWait.recordHolder(fd) }
    }

    deinit {
        if fd >= 0 {
            _ = ftruncate(fd, 0)
            flock(fd, LOCK_UN)
            close(fd)
        }
        if wantedFD >= 0 { close(wantedFD) }
    }

    private static func openFiles(_ directory: String) -> (Int32, Int32) {
        let flags = O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC
        return (
            open(directory + "/" + fileName, flags, 0o600),
            open(directory + "/" + wantedFileName, flags, 0o600)
        )
    }

    /// The lease when no other process holds it or waits for it; nil otherwise.
    static func ifFree(directory: String) -> EmbeddingLease? {
        let (fd, wantedFD) = openFiles(directory)
        guard fd >= 0 else { return EmbeddingLease(fd: -1, wantedFD: wantedFD) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            if wantedFD >= 0 { close(wantedFD) }
            return nil
        }
        let lease = EmbeddingLease(fd: fd, wantedFD: wantedFD)
        return lease.isWanted ? nil : lease
    }

    /// The lease, once its holder lets go: a background pass does after its batch, another
    /// command when it is done (a `busy` error after ``LockWait/timeout``).
    static func waiting(directory: String, timeout: Double = LockWait.timeout) throws(NotesError)
        -> EmbeddingLease
    {
        let (fd, wantedFD) = openFiles(directory)
        guard fd >= 0 else { return EmbeddingLease(fd: -1, wantedFD: wantedFD) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return EmbeddingLease(fd: fd, wantedFD: wantedFD) }
        var saidWanted = false
        let taken = LockWait.poll(
            timeout: timeout,
            onFirstWait: {
                Notices.post(
                    .waiting,
                    "notes: waiting for \(LockWait.describeHolder(fd)), which is embedding this index, to let go…"
                )
            }
        ) {
            // A background holder testing for waiters takes `embed.wanted` for a moment.
            if !saidWanted, wantedFD >= 0 { saidWanted = flock(wantedFD, LOCK_SH | LOCK_NB) == 0 }
            return flock(fd, LOCK_EX | LOCK_NB) == 0
        }
        if wantedFD >= 0 && saidWanted { flock(wantedFD, LOCK_UN) }
        guard taken else {
            let holder = LockWait.describeHolder(fd)
            close(fd)
            if wantedFD >= 0 { close(wantedFD) }
            throw LockWait.busy("the embedding of this index", holder: holder, waited: timeout)
        }
        return EmbeddingLease(fd: fd, wantedFD: wantedFD)
    }

    /// Whether a command waits for this lease (a background pass then stops after its
    /// batch).
    var isWanted: Bool {
        guard wantedFD >= 0 else { return false }
        if flock(wantedFD, LOCK_EX | LOCK_NB) == 0 {
            flock(wantedFD, LOCK_UN)
            return false
        }
        // Only a hold by someone else says so (another failure is not a waiter).
        return errno == EWOULDBLOCK
    }

    /// Whether a command waits for the lease of the index in `directory` (tests).
    static func isWanted(directory: String) -> Bool {
        let fd = open(directory + "/" + wantedFileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }
}
