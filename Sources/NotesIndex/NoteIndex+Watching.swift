import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#endif

/// Freshness without a stat walk (docs/spec.md §4.3): other processes can see that a live
/// `notes watch` keeps the index fresh (the watching itself is NotesSession's).
extension NoteIndex {
    /// Whether a live `notes watch` holds this index's watch lease under this process's
    /// settings: then reading commands may skip their stat walk (the watcher's lag is its
    /// debounce plus one refresh).
    public var isKeptFreshByWatcher: Bool {
        Self.isKeptFreshByWatcher(directory: directory, configStamp: workspace.configStamp)
    }

    /// Whether a live inotify `notes watch` holds the watch lease of the index in
    /// `directory`, having loaded the settings `configStamp` names (``Workspace/configStamp``):
    /// a watcher that has not yet seen an edit of `.notes/config.yml` still indexes under
    /// the old ignore rules, so the reader walks itself.
    public static func isKeptFreshByWatcher(directory: String, configStamp: String) -> Bool {
        WatchLease.isHeld(path: directory + "/" + WatchLease.fileName, configStamp: configStamp)
    }

    /// Takes the watch lease for `notes watch` (one watcher per index).
    public func takeWatchLease(mode: String, configStamp: String) throws(NotesError) -> WatchLease {
        try WatchLease(
            path: directory + "/" + WatchLease.fileName, mode: mode, configStamp: configStamp)
    }
}
