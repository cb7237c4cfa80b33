import Foundation
import NotesCore

/// The changes a refresh (or get_context) finds that notes did not make, logged as the
/// person's: edits (``settle(_:)``), and files removed or moved (``noteRemovals(_:)``).
extension HistoryStore {

    /// Settles what a refresh just read with the log (docs/spec.md §6.4), holding the
    /// workspace lock so that no tool write is half-done: every tool write whose bytes the
    /// refresh read has its line by now. Logs `edits` as the person's: the new bytes go to
    /// the object store and the log gets an `external` line by `user`, timed at the file's
    /// mtime (``PathHistory/outsideEditRecord(path:replacing:version:mtime:)``), unless the
    /// log ends with that version for the path (a tool write). A file that changed again
    /// since it was read is left to the refresh that reads its new bytes (the line would
    /// otherwise pair those bytes with the old mtime).
    ///
    /// Returns the histories of every path as the log then stands, and the edits it did not
    /// log for want of the lock (another process held it for over 2 s), of storage, or
    /// because the file changed again: their rows show the person's edit all the same
    /// (``PathHistory/effectiveAfterOutsideEdit(path:stated:replacing:version:mtime:)``).
    /// A workspace without `.notes/` has no tool writes and logs nothing.
    public func settle(_ edits: [OutsideEdit]) -> (
        histories: [String: PathHistory], unlogged: [OutsideEdit]
    ) {
        guard workspace.isInitialized else { return (allHistories(), []) }
        guard let lock = try? WorkspaceLock(stateDirectory: workspace.stateDirectory, timeout: 2)
        else { return (allHistories(), edits) }
        defer { withExtendedLifetime(lock) {} }
        var unlogged: [OutsideEdit] = []
        for edit in edits {
            guard
                let bytes = try? FileBytes.read(
                    path: workspace.absolutePath(edit.path),
                    maxBytes: workspace.config.indexMaxBytes, checkingLocation: true),
                ContentVersion(of: bytes).short == edit.version
            else {
                unlogged.append(edit)
                continue
            }
            guard
                let record = history(of: edit.path).outsideEditRecord(
                    path: edit.path, replacing: edit.before, version: edit.version,
                    mtime: edit.mtime)
            else {
                continue  // the log ends with this version: a tool wrote it
            }
            guard (try? store(bytes)) != nil, (try? append(record)) != nil else {
                unlogged.append(edit)
                continue
            }
        }
        return (allHistories(), unlogged)
    }

    /// The client of the changes a refresh found that notes did not make.
    public static let outsideNotes = "outside notes"

    /// The files the history last left in place (``PathHistory/versionLeft(at:)``, a version
    /// it keeps) that are no longer on disk: removed or moved since by the person or another
    /// program, and not yet logged.
    public func missingFiles() -> [(path: String, version: String)] {
        allHistories().compactMap { path, history -> (path: String, version: String)? in
            guard let version = history.versionLeft(at: path), hasObject(version),
                !FileSystem.exists(workspace.absolutePath(path))
            else { return nil }
            return (path, version)
        }.sorted { $0.path < $1.path }
    }

    /// Logs `removals`, files found gone that notes did not remove or move, as the person's
    /// (client ``outsideNotes``), under the workspace lock: a delete (its last version
    /// restorable) or a move to where the same bytes now are. Left out: a path that is on
    /// disk after all (newly ignored, unreadable, replaced while being saved), one the
    /// history does not leave there with a version it keeps (never held, or notes removed or
    /// moved it itself), and all of them while a change of notes' own is unfinished (its
    /// intent is pending: the next writer logs it). A move onto a file with a history of its
    /// own is logged as a delete: the same bytes there are a copy, not this file.
    public func noteRemovals(_ removals: [OutsideRemoval]) {
        guard workspace.isInitialized, !removals.isEmpty,
            let lock = try? WorkspaceLock(stateDirectory: workspace.stateDirectory, timeout: 2)
        else { return }
        defer { withExtendedLifetime(lock) {} }
        guard !FileSystem.exists(intentPath) else { return }
        var records: [ChangeRecord] = []
        for removal in removals {
            guard let left = history(of: removal.path).versionLeft(at: removal.path),
                !FileSystem.exists(workspace.absolutePath(removal.path))
            else { continue }
            let before = hasObject(removal.version) ? removal.version : left
            guard hasObject(before) else { continue }
            let movedTo = removal.movedTo.flatMap {
                history(of: $0).last == nil && FileSystem.exists(workspace.absolutePath($0))
                    ? $0 : nil
            }
            records.append(
                ChangeRecord(
                    actor: .user, client: Self.outsideNotes,
                    operation: movedTo == nil ? .delete : .move, path: removal.path,
                    to: movedTo, before: before, after: movedTo == nil ? nil : removal.version))
        }
        for record in records { try? append(record) }
    }
}
