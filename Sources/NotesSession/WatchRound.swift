import Foundation
import NotesCore
import NotesIndex

/// One refresh of the watch loop, and why it ran.
public struct WatchRound: Sendable {
    public enum Reason: String, Sendable {
        case start, config, overflow, change, poll
    }

    public var reason: Reason
    public var report: RefreshReport
    /// The folders inotify watches; nil when the loop polls.
    public var watchedFolders: Int?
    /// Why inotify is not used, when it was wanted and is not available.
    public var fallbackReason: String?

    public init(
        reason: Reason, report: RefreshReport, watchedFolders: Int? = nil,
        fallbackReason: String? = nil
    ) {
        self.reason = reason
        self.report = report
        self.watchedFolders = watchedFolders
        self.fallbackReason = fallbackReason
    }
}
