import Foundation
import GRDB
import NotesCore

/// A layout snapshot being read on a thread of its own, and the stats of its paths, started
/// when the index was opened (the read and its checks are a few milliseconds at 100k notes:
/// they overlap the database's opening instead of preceding it). The token the file names
/// is published first, so a refresh that finds the database at another layout gives up
/// without waiting for the rest.
final class PendingLayout: @unchecked Sendable {
    let prefetch: StatPrefetch
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var token: String??
    private var loaded = false
    private var read: LayoutSnapshot?
    private var abandoned = false

    init(root: String, directory: String, fingerprint: String) {
        prefetch = StatPrefetch(root: root)
        let thread = Thread { [prefetch, condition] in
            let snapshot = LayoutSnapshot.read(directory: directory) { token in
                condition.lock()
                defer { condition.unlock() }
                self.token = .some(token)
                condition.broadcast()
                return !self.abandoned
            }.flatMap { $0.fingerprint == fingerprint ? $0 : nil }
            if let snapshot {
                let paths = snapshot.pathPointers()
                prefetch.stat(folders: paths.folders, files: paths.files, keeping: snapshot)
            } else {
                prefetch.cancel()
            }
            condition.lock()
            if self.token == nil { self.token = .some(nil) }
            self.read = snapshot
            self.loaded = true
            condition.broadcast()
            condition.unlock()
        }
        thread.name = "notes-layout"
        thread.start()
    }

    /// The snapshot if it is a copy of the layout `current` names (nil: it is not, or it is
    /// not usable); stops the reading and the stats otherwise.
    func snapshot(ifTokenIs current: String?) -> LayoutSnapshot? {
        condition.lock()
        defer { condition.unlock() }
        while token == nil { condition.wait() }
        guard let current, token! == current else {
            abandoned = true
            prefetch.cancel()
            return nil
        }
        while !loaded { condition.wait() }
        if read == nil { prefetch.cancel() }
        return read
    }
}
