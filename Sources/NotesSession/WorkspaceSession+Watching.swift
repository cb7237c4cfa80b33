import Foundation
import NotesCore
import NotesIndex

#if canImport(Glibc)
    import Glibc
#endif

/// Freshness from the kernel (docs/spec.md §4.3): the session watches its workspace with
/// inotify, and refreshes only the paths the kernel reported. The one watcher serves both
/// ways of keeping an index fresh: on demand before each tool call of the MCP server and
/// the built-in agent (``refreshIfNeeded()``), and the loop of `notes watch` (``keepFresh(_:stoppingOn:progress:onRound:)``).
extension WorkspaceSession {
    /// Starts watching the workspace, then refreshes everything once (events before the
    /// watch began were not seen). Afterwards ``refreshIfNeeded()`` costs one non-blocking
    /// `read` when nothing changed. Returns nil on success, else why watching is unavailable
    /// (every refresh then walks the workspace).
    @discardableResult
    public func watchForChanges() -> NotesError? {
        do {
            let watcher = try FolderWatcher(workspace: workspace)
            watchState.set(.watching(watcher))
            _ = try index.refresh()
            return nil
        } catch {
            watchState.set(.unavailable)
            return error
        }
    }

    /// For a long-lived process after ``Workspace/reloadConfigIfChanged()`` said the
    /// settings changed: rescans everything under the new rules (what is ignored, and what
    /// is hidden from the agent), watching again with the new ignore rules when this session
    /// watches (a folder no longer ignored gets its watch). Without a watch the whole
    /// refresh every search makes already follows the new rules, and this one does it now.
    public func settingsChanged() throws(NotesError) {
        if case .watching = watchState.get() {
            // On failure the state is `unavailable`: searches then refresh everything.
            if watchForChanges() == nil { return }
        }
        _ = try index.refresh()
    }

    /// Brings the index up to date as cheaply as it can: with a watcher (see
    /// ``watchForChanges()``) only the reported paths are looked at; without one this is a
    /// whole refresh. A kernel queue overflow falls back to a whole refresh, and so does the
    /// refresh after one that failed (a full or read-only cache disk, a busy index): the
    /// events it had read are gone from the kernel's queue, and without a whole refresh the
    /// files they named would stay stale in the index for the rest of the session.
    public func refreshIfNeeded() throws(NotesError) -> RefreshReport {
        guard case .watching(let watcher) = watchState.get() else { return try index.refresh() }
        let changes = watcher.read()
        do {
            let report: RefreshReport
            if watchState.missedEvents {
                report = try index.refresh()
            } else {
                switch changes {
                case .none: report = RefreshReport()
                case .overflow: report = try index.refresh()
                case .paths(let paths): report = try index.refresh(only: paths)
                }
            }
            watchState.missedEvents = false
            return report
        } catch {
            watchState.missedEvents = true
            throw error
        }
    }

    /// `notes watch`: keeps the index fresh until the descriptor `stop` becomes readable,
    /// holding the index's watch lease (so reading commands skip their walk while an
    /// inotify watch runs). Events are gathered until they pause for the debounce (at most
    /// ten debounces); without inotify (or with `poll`) the workspace is walked every
    /// `poll` seconds (2 by default). An edit of `.notes/config.yml` rescans under the new
    /// settings. Each refresh is handed to `onRound`, the first one (with `progress`) too.
    public func keepFresh(
        _ options: WatchOptions, stoppingOn stop: Int32,
        progress: (@Sendable (RefreshProgress) -> Void)? = nil,
        onRound: (WatchRound) -> Void
    ) throws(NotesError) {
        var watcher: FolderWatcher?
        var fallbackReason: String?
        if options.poll == nil {
            do { watcher = try FolderWatcher(workspace: workspace) } catch {
                fallbackReason = error.message
            }
        }
        watchState.set(watcher.map { .watching($0) } ?? .unavailable)
        let lease = try index.takeWatchLease(
            mode: watcher != nil ? "inotify" : "poll", configStamp: workspace.configStamp)
        defer { withExtendedLifetime(lease) {} }
        let interval = options.poll ?? 2
        let first = try index.refresh(progress: progress)
        onRound(
            WatchRound(
                reason: .start, report: first, watchedFolders: watcher?.folderCount,
                fallbackReason: fallbackReason))
        while !Self.isReadable(stop, milliseconds: 0) {
            // Moved or deleted, the folder is no longer at the path every refresh uses:
            // watching on would index nothing, silently.
            guard workspace.isStillAtItsPath else {
                throw NotesError(
                    .notFound,
                    "the workspace folder \(workspace.root) was moved or deleted while watching; stopped",
                    hint: "run notes watch again in its new place")
            }
            // The person edited .notes/config.yml: new ignore rules decide what is
            // watched and indexed, new protected paths what agents may find.
            if workspace.reloadConfigIfChanged() {
                if watcher != nil {
                    do { watcher = try FolderWatcher(workspace: workspace) } catch {
                        watcher = nil
                        fallbackReason = error.message
                    }
                    watchState.set(watcher.map { .watching($0) } ?? .unavailable)
                }
                onRound(
                    WatchRound(
                        reason: .config, report: try index.refresh(),
                        watchedFolders: watcher?.folderCount, fallbackReason: fallbackReason))
                lease.update(
                    mode: watcher != nil ? "inotify" : "poll", configStamp: workspace.configStamp)
            }
            if let watcher {
                // Wakes at least once a second to look at the config file (one stat).
                guard watcher.wait(milliseconds: 1000, alsoWatching: stop) else { continue }
                // Debounce: collect until the events pause (or 10× the debounce passes).
                var changes = watcher.read()
                let deadline = Timestamp.now() + Double(options.debounceMilliseconds * 10) / 1000
                while !Self.isReadable(stop, milliseconds: 0), Timestamp.now() < deadline,
                    watcher.wait(
                        milliseconds: Int32(options.debounceMilliseconds), alsoWatching: stop)
                {
                    changes = Self.merge(changes, watcher.read())
                }
                switch changes {
                case .none: continue
                case .overflow:
                    onRound(
                        WatchRound(
                            reason: .overflow, report: try index.refresh(),
                            watchedFolders: watcher.folderCount))
                case .paths(let paths):
                    onRound(
                        WatchRound(
                            reason: .change, report: try index.refresh(only: paths),
                            watchedFolders: watcher.folderCount))
                }
            } else {
                if Self.isReadable(stop, milliseconds: Int32(interval * 1000)) { break }
                onRound(
                    WatchRound(
                        reason: .poll, report: try index.refresh(), fallbackReason: fallbackReason))
            }
        }
    }

    private static func merge(_ a: FolderWatcher.Changes?, _ b: FolderWatcher.Changes?)
        -> FolderWatcher.Changes?
    {
        switch (a, b) {
        case (nil, let x), (let x, nil): return x
        case (.overflow, _), (_, .overflow): return .overflow
        case (.paths(let x), .paths(let y)): return .paths(x.union(y))
        }
    }

    /// Whether `fd` becomes readable within `milliseconds` (0: now).
    private static func isReadable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) > 0
    }
}
