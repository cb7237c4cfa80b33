import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#endif

/// Freshness without a stat walk (SPEC §4.3): a process that watches the workspace with
/// inotify refreshes only the paths the kernel reported, and other processes can see that
/// a live `notes watch` keeps the index fresh.
extension NoteIndex {
    /// Starts watching the workspace in this process, then refreshes everything once
    /// (events before the watch began were not seen). Afterwards ``refreshIfNeeded()``
    /// costs one non-blocking `read` when nothing changed. Returns nil on success, else why
    /// watching is unavailable (the index then falls back to full refreshes).
    @discardableResult
    public func watchForChanges() -> NotesError? {
        do {
            let watcher = try FolderWatcher(workspace: workspace)
            watchState.withLock { $0 = .watching(watcher) }
            _ = try refresh()
            return nil
        } catch {
            watchState.withLock { $0 = .unavailable }
            return error
        }
    }

    /// Brings the index up to date as cheaply as it can: with a watcher (see
    /// ``watchForChanges()``) only the reported paths are looked at; without one this is
    /// ``refresh(progress:)``. A kernel queue overflow falls back to a full refresh.
    public func refreshIfNeeded() throws(NotesError) -> RefreshReport {
        let changes: FolderWatcher.Changes?? = watchState.withLock { state in
            if case .watching(let watcher) = state { return .some(watcher.read()) }
            return .none
        }
        switch changes {
        case .none: return try refresh()
        case .some(.none): return RefreshReport()
        case .some(.some(.overflow)): return try refresh()
        case .some(.some(.paths(let paths))): return try refresh(only: paths)
        }
    }

    /// Whether a live `notes watch` holds this index's watch lease: then reading commands
    /// may skip their stat walk (the watcher's lag is its debounce plus one refresh).
    public var isKeptFreshByWatcher: Bool {
        Self.isKeptFreshByWatcher(directory: directory)
    }

    /// Whether a live `notes watch` holds the watch lease of the index in `directory`.
    public static func isKeptFreshByWatcher(directory: String) -> Bool {
        WatchLease.isHeld(path: directory + "/" + WatchLease.fileName)
    }

    /// Takes the watch lease for `notes watch` (one watcher per index).
    public func takeWatchLease(mode: String) throws(NotesError) -> WatchLease {
        try WatchLease(path: directory + "/" + WatchLease.fileName, mode: mode)
    }
}

/// What this process knows about watching its workspace.
enum WatchState {
    case notStarted
    case watching(FolderWatcher)
    case unavailable
}

/// A lock-protected box (the index is shared across threads by the MCP server).
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// `notes watch`'s claim on an index: an exclusive `flock` on `watch.lock` in the index
/// folder, released by the kernel when the watcher exits however it exits. Only an
/// inotify watcher writes mode `inotify`; readers skip their walk only for that mode.
public final class WatchLease {
    static let fileName = "watch.lock"
    private let fd: Int32

    init(path: String, mode: String) throws(NotesError) {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw NotesError(.internal, "cannot open \(path): \(String(cString: strerror(errno)))", hint: "check that the index folder is writable")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var holder = [UInt8](repeating: 0, count: 64)
            let n = pread(fd, &holder, holder.count, 0)
            let pid = n > 0 ? String(decoding: holder[..<n], as: UTF8.self).split(separator: " ").first.map(String.init) ?? "?" : "?"
            close(fd)
            throw NotesError(.invalidArgument, "another notes watch (pid \(pid)) is already keeping this index fresh", hint: "stop it first, or let it run")
        }
        self.fd = fd
        let text = Array("\(getpid()) \(mode)\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, text, text.count, 0)
    }

    deinit {
        _ = ftruncate(fd, 0)
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// Whether an inotify watcher holds the lease at `path`.
    static func isHeld(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        var text = [UInt8](repeating: 0, count: 64)
        let n = pread(fd, &text, text.count, 0)
        return n > 0 && String(decoding: text[..<n], as: UTF8.self).contains("inotify")
    }
}
