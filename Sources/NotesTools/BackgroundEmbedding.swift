import Foundation
import NotesCore
import NotesEmbedding
import NotesIndex

/// Embeds new and changed passages on a thread of its own, for the processes that stay up
/// (`notes mcp`, `notes agent`, `notes watch`): a search never waits for it and uses the
/// vectors that exist. A pass is started by ``kick()`` after a refresh; kicks during a pass
/// start one more pass after it. Killed mid-way, the next pass continues from what was
/// committed. When another process embeds the index (``NoteIndex/embedPendingInBackground(with:shouldStop:)``
/// finds it busy, or a command asks for it), one retry is scheduled a few seconds later.
public final class BackgroundEmbedding: @unchecked Sendable {
    private let index: NoteIndex
    private let queue = DispatchQueue(label: "notes.embedding", qos: .utility)
    private let lock = NSLock()
    private var state = State()
    /// The model, loaded on first use by whoever needs it first.
    private var loaded: EmbeddingModel??
    private let threads: Int

    private struct State {
        var running = false
        var again = false
        /// The index's files stamp when the last pass that finished began (nil: none did).
        var embeddedStamp: String?
        var stopped = false
        var lastError: String?
        /// A retry after another process's embedding is pending (one at a time).
        var retryScheduled = false
    }

    /// nil when no model is installed.
    public init?(index: NoteIndex, threads: Int = 1) {
        guard ModelLocation.installed() != nil else { return nil }
        self.index = index
        self.threads = threads
    }

    /// The model (loaded once; nil when it does not load).
    public var model: EmbeddingModel? {
        lock.lock()
        defer { lock.unlock() }
        if let loaded { return loaded }
        let fresh = try? ModelLocation.load(threads: threads)
        loaded = .some(fresh)
        return fresh
    }

    /// Starts a pass unless one is running (then one more follows it).
    public func kick() {
        let start = withState { state -> Bool in
            guard !state.stopped else { return false }
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        if start { queue.async { [self] in run() } }
    }

    /// Starts a pass when the index may hold passages without vectors: when its files
    /// stamp (``NoteIndex/filesStamp()``) moved since the last pass that finished began —
    /// a file changed, by this process or another, or the index was rebuilt — or no pass has
    /// finished yet (the first, or one that failed). A pass with nothing to do still scans
    /// every section, so it is not run for each search.
    public func kickIfStale() {
        let stamp = index.filesStamp()
        if stamp == nil || stamp != withState({ $0.embeddedStamp }) { kick() }
    }

    /// Stops after the batch in progress; no pass starts afterwards.
    public func stop() {
        withState { $0.stopped = true }
    }

    /// Waits until no pass runs (tests, and a clean exit).
    public func waitUntilIdle() {
        queue.sync {}
    }

    /// Stops after the batch in progress and waits for it: a process must call this before
    /// it exits, or the model it unloads at exit is freed under the pass still using it.
    public func finish() {
        stop()
        waitUntilIdle()
    }

    /// The last pass's failure, if any (reported by `notes status` and get_context).
    public var lastError: String? { withState { $0.lastError } }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(&state)
    }

    /// Seconds before a pass that found another process embedding tries again (that
    /// process may stop before it is done: killed, or a background pass itself).
    static let retryAfterOtherEmbedder = 5.0

    private func run() {
        var deferred = false
        while true {
            if let model {
                do {
                    let stamp = index.filesStamp()
                    // Another process embedding this index (or waiting to): its vectors
                    // appear as it stores them, and a later kick tries again.
                    let ran = try index.embedPendingInBackground(
                        with: model, shouldStop: { [self] in withState { $0.stopped } })
                    withState {
                        $0.lastError = nil
                        if ran && !$0.stopped { $0.embeddedStamp = stamp }
                    }
                    deferred = !ran
                } catch {
                    withState { $0.lastError = error.message }
                }
            }
            let again = withState { state -> Bool in
                if state.again && !state.stopped {
                    state.again = false
                    return true
                }
                state.running = false
                return false
            }
            if !again { break }
        }
        let retry =
            deferred
            && withState { state -> Bool in
                guard !state.retryScheduled && !state.stopped else { return false }
                state.retryScheduled = true
                return true
            }
        if retry {
            queue.asyncAfter(deadline: .now() + Self.retryAfterOtherEmbedder) { [weak self] in
                guard let self else { return }
                self.withState { $0.retryScheduled = false }
                self.kickIfStale()
            }
        }
    }
}
