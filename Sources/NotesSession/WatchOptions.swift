import Foundation
import NotesCore
import NotesIndex

/// How `notes watch` keeps the index fresh (``WorkspaceSession/keepFresh(_:stoppingOn:progress:onRound:)``).
public struct WatchOptions: Sendable {
    /// Walk every this many seconds instead of using inotify.
    public var poll: Double?
    /// Wait this long after the last event before refreshing.
    public var debounceMilliseconds: Int

    public init(poll: Double? = nil, debounceMilliseconds: Int = 30) {
        self.poll = poll
        self.debounceMilliseconds = debounceMilliseconds
    }
}
