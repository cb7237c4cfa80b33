import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import NotesCore
import NotesDocuments

/// The files the index knows, read for a refresh to compare with the walk.
extension NoteIndex {
    /// What the index holds about the files at `paths` (nil: all of them, with the folders'
    /// stamps), and whether its hidden flags were set under this workspace's policy.
    /// Stamps are read only when made under `rules` (the walk's ignore rules). With
    /// `prefetch`, the whole workspace's known folders and files are handed to it as they
    /// are read (to be stat'ed on other threads meanwhile).
    func knownFiles(
        _ paths: Set<String>?, stampRules rules: IgnoreRules, prefetch: StatPrefetch? = nil
    ) throws(NotesError) -> KnownFiles {
        let policy = workspace.config.policy
        do {
            return try pool.read { db in
                let hiddenFlagsCurrent = try HiddenFiles.isCurrent(db, policy: policy)
                var result: [KnownFile] = []
                let columns = "SELECT id, path, size, mtime_ns, inode, digest FROM files"
                guard let paths else {
                    // Read in the same transaction as the files, so both are one moment's.
                    let folders = try FolderStamps.read(db, rules: rules)
                    let feeding = folders == nil ? nil : prefetch
                    feeding?.statFolders(folders?.map(\.path) ?? [])
                    let statement = try db.makeStatement(
                        sql: "SELECT id, path, size, mtime_ns, inode FROM files")
                    try statement.setArguments([])
                    try Self.collect(statement, digests: false, feeding: feeding, into: &result)
                    var known = KnownFiles(
                        files: result, folders: folders, hasDigests: false,
                        hiddenFlagsCurrent: hiddenFlagsCurrent)
                    known.layoutToken = try LayoutSnapshot.currentToken(db)
                    known.sizeLimit = try IndexedSizeLimit.applied(db)
                    return known
                }
                // The path itself, and everything below it ("/" sorts just before "0").
                let statement = try db.cachedStatement(
                    sql: columns + " WHERE path = ? OR (path > ? AND path < ?)")
                for path in paths {
                    try statement.setArguments([path, path + "/", path + "0"])
                    try Self.collect(statement, digests: true, into: &result)
                }
                return KnownFiles(
                    files: result, folders: nil, hasDigests: true,
                    hiddenFlagsCurrent: hiddenFlagsCurrent)
            }
        } catch {
            throw wrap(error)
        }
    }

    /// Appends the `files` rows `statement` yields to `result`, read column by column: this
    /// loads every file of a large workspace on each no-change refresh, where decoding
    /// through `Row` was a seventh of the time. The whole workspace's read leaves the
    /// digests out (a third of the time; only changed and gone files need theirs:
    /// ``withDigests``). With `prefetch`, the paths are handed to it in chunks as they come.
    private static func collect(
        _ statement: Statement, digests: Bool, feeding prefetch: StatPrefetch? = nil,
        into result: inout [KnownFile]
    ) throws {
        let raw = statement.sqliteStatement
        var chunk: [String] = []
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE {
                if !chunk.isEmpty { prefetch?.statFiles(chunk) }
                break
            }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code))
            }
            guard let text = sqlite3_column_text(raw, 1) else { continue }
            let digest =
                digests ? sqlite3_column_text(raw, 5).map { String(cString: $0) } ?? "" : ""
            let path = String(cString: text)
            if let prefetch {
                chunk.append(path)
                if chunk.count == StatPrefetch.chunkSize {
                    prefetch.statFiles(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            result.append(
                KnownFile(
                    id: sqlite3_column_int64(raw, 0), path: path,
                    size: Int(sqlite3_column_int64(raw, 2)),
                    mtimeNanos: sqlite3_column_int64(raw, 3),
                    inode: UInt64(bitPattern: sqlite3_column_int64(raw, 4)), digest: digest))
        }
    }

    /// The known files from the layout snapshot whose stats began when the index was opened
    /// (``init(workspace:directory:longLived:refreshingSoon:)``), with that prefetch; nil
    /// when there is none, or the database's layout is no longer the one it copied.
    func knownFromSnapshot() throws(NotesError) -> (KnownFiles, LayoutSnapshot, StatPrefetch)? {
        guard
            let pending = pendingLayout.withLock({
                (pending: inout PendingLayout?) -> PendingLayout? in
                defer { pending = nil }
                return pending
            })
        else { return nil }
        let policy = workspace.config.policy
        let state: (token: String?, hiddenFlagsCurrent: Bool, sizeLimit: Int?)
        do {
            state = try pool.read { db in
                (
                    try LayoutSnapshot.currentToken(db),
                    try HiddenFiles.isCurrent(db, policy: policy),
                    try IndexedSizeLimit.applied(db)
                )
            }
        } catch {
            pending.prefetch.cancel()
            throw wrap(error)
        }
        // Made under this workspace's ignore rules (``PendingLayout`` keeps no other).
        guard let snapshot = pending.snapshot(ifTokenIs: state.token), snapshot.token == state.token
        else {
            pending.prefetch.cancel()
            return nil
        }
        var known = snapshot.knownFiles(hiddenFlagsCurrent: state.hiddenFlagsCurrent)
        known.sizeLimit = state.sizeLimit
        return (known, snapshot, pending.prefetch)
    }

    /// `work` and `gone` with the known files' digests read (``knownFiles(_:)`` leaves them
    /// out of the whole workspace's read).
    func withDigests(_ work: [PendingFile], _ gone: [String: KnownFile]) throws(NotesError) -> (
        [PendingFile], [String: KnownFile]
    ) {
        do {
            return try pool.read { db in
                let statement = try db.makeStatement(sql: "SELECT digest FROM files WHERE id = ?")
                func digest(_ id: Int64) throws -> String {
                    try String.fetchOne(statement, arguments: [id]) ?? ""
                }
                var work = work
                var gone = gone
                for i in work.indices where work[i].known != nil {
                    work[i].known!.digest = try digest(work[i].known!.id)
                }
                for (path, file) in gone { gone[path]!.digest = try digest(file.id) }
                return (work, gone)
            }
        } catch {
            throw wrap(error)
        }
    }
}
