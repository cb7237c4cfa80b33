import Foundation
import NotesCore
import NotesIndex

/// The session's watch state behind a lock (the MCP server shares the session across threads).
final class WatchStateBox: @unchecked Sendable {
    private var state = WatchState.notStarted
    private let lock = NSLock()

    func get() -> WatchState {
        lock.lock()
        defer { lock.unlock() }
        return state
    }

    func set(_ new: WatchState) {
        lock.lock()
        state = new
        lock.unlock()
    }

    /// Whether a refresh failed after the watcher's events were read (the kernel's queue
    /// no longer has them): the next refresh must look at everything.
    private var missed = false

    var missedEvents: Bool {
        get {
            lock.lock()
            defer { lock.unlock() }
            return missed
        }
        set {
            lock.lock()
            missed = newValue
            lock.unlock()
        }
    }
}
