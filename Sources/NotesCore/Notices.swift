import Foundation

/// What the library tells the person while it works, besides its results: a wait for
/// another notes process, an index rebuilt after damage, a library it cannot load. Library
/// code reports here and never prints; the executables decide where notices go (`notes` and
/// `notes-mcp` send them to stderr, one line each: ``StandardStreams/installNoticesOnStderr()``).
/// Unobserved, they are dropped, so a package that uses NotesIndex stays quiet unless it asks.
public enum Notices {
    /// One notice: a line of text for the person (no trailing newline).
    public struct Notice: Sendable {
        public enum Kind: String, Sendable {
            /// This process waits for another (a lock, a build).
            case waiting
            /// The search index was damaged and is being rebuilt from the files.
            case indexRebuilt
            /// The process cannot go on (it ends after the notice).
            case fatal
        }

        public var kind: Kind
        public var message: String
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var observer: (@Sendable (Notice) -> Void)?

    /// Sends every later notice to `observe` (nil: drop them).
    public static func observe(_ observe: (@Sendable (Notice) -> Void)?) {
        lock.lock()
        observer = observe
        lock.unlock()
    }

    /// Reports `message` to the observer, if any.
    public static func post(_ kind: Notice.Kind, _ message: String) {
        lock.lock()
        let current = observer
        lock.unlock()
        current?(Notice(kind: kind, message: message))
    }
}
