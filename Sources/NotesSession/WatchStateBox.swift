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
}
