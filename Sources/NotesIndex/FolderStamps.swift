import GRDB
import GRDBSQLite
import NotesCore

/// The `folders` table: each folder's stamp from the last walk that listed it
/// (``FolderStamp``), so the next walk lists only folders that changed.
///
/// The invariant that makes skipping safe: a folder with a non-zero stamp has, in `files`
/// and `folders`, a row for every file and sub-folder its listing found. Writes keep it:
/// - a stamp is recorded only after checking those rows in the same transaction (another
///   process may have deleted one since this walk listed the folder);
/// - whoever deletes a file's row (a file gone, a rename's old path) sets its folder's
///   stamp to 0 in the same transaction, so that folder is listed again.
/// Stamps are only valid under the ignore rules they were made with (`meta.folder_rules`).
enum FolderStamps {
    /// Bump when the walk's own rules change in a way the fingerprint does not capture.
    static let walkVersion = "1"

    /// What the stamps depend on besides the folders: the walk's version and the config's
    /// ignore globs.
    static func fingerprint(_ rules: IgnoreRules) -> String {
        ([walkVersion] + rules.globs.map(\.pattern)).joined(separator: "\n")
    }

    /// The stamps, or nil when there are none made under `rules`.
    static func read(_ db: Database, rules: IgnoreRules) throws -> [FolderStamp]? {
        guard
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'folder_rules'")
                == fingerprint(rules)
        else { return nil }
        var stamps: [FolderStamp] = []
        let statement = try db.makeStatement(sql: "SELECT path, inode, ctime_ns FROM folders")
        let raw = statement.sqliteStatement
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code))
            }
            guard let path = sqlite3_column_text(raw, 0) else { continue }
            stamps.append(
                FolderStamp(
                    path: String(cString: path),
                    inode: UInt64(bitPattern: sqlite3_column_int64(raw, 1)),
                    changeNanos: sqlite3_column_int64(raw, 2)))
        }
        return stamps.isEmpty ? nil : stamps
    }

    /// Whether the walk `scan` changed any stamp the index holds (`known`, nil: none valid).
    /// A walk that repeats what the index holds writes nothing (reads stay read-only,
    /// docs/spec.md §4.3's freshness aside).
    static func needsRecording(_ scan: WorkspaceScan, known: [FolderStamp]?) -> Bool {
        guard scan.stamped else { return false }
        guard let known else { return !scan.listed.isEmpty }
        if scan.listedEverything { return Set(scan.listed.map(\.stamp)) != Set(known) }
        if !scan.goneFolders.isEmpty { return true }
        guard !scan.listed.isEmpty else { return false }
        let old = Dictionary(known.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        return scan.listed.contains { old[$0.stamp.path] != $0.stamp }
    }

    /// Records what the walk `scan` saw: drops gone folders' stamps (and those below them),
    /// writes the listed folders' stamps. With `checking`, a stamp is written as 0 unless
    /// every entry its listing found has its row (see the type's invariant); a fresh build's
    /// private file, which no other process can have touched, skips the check. A walk that
    /// listed every folder replaces all stamps (stale ones, or ones made under other rules).
    static func record(_ scan: WorkspaceScan, rules: IgnoreRules, checking: Bool, _ db: Database)
        throws
    {
        if scan.listedEverything {
            try db.execute(sql: "DELETE FROM folders")
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('folder_rules', ?)",
                arguments: [fingerprint(rules)])
        }
        let dropBelow = try db.makeStatement(sql: "DELETE FROM folders WHERE path > ? AND path < ?")
        let drop = try db.makeStatement(sql: "DELETE FROM folders WHERE path = ?")
        for path in scan.goneFolders {
            try drop.execute(arguments: [path])
            try dropBelow.execute(
                arguments: path.isEmpty ? ["", "\u{10FFFF}"] : [path + "/", path + "0"])
        }
        let write = try db.makeStatement(
            sql: "INSERT OR REPLACE INTO folders (path, inode, ctime_ns) VALUES (?, ?, ?)")
        for folder in scan.listed {
            try write.execute(arguments: [
                folder.stamp.path, Int64(bitPattern: folder.stamp.inode), folder.stamp.changeNanos,
            ])
        }
        guard checking else { return }
        let fileRow = try db.makeStatement(sql: "SELECT 1 FROM files WHERE path = ?")
        let folderRow = try db.makeStatement(sql: "SELECT 1 FROM folders WHERE path = ?")
        let unstamp = try db.makeStatement(sql: "UPDATE folders SET ctime_ns = 0 WHERE path = ?")
        for folder in scan.listed where folder.stamp.changeNanos != 0 {
            var complete = true
            for file in scan.files[folder.files]
            where try Bool.fetchOne(fileRow, arguments: [file.path]) == nil {
                complete = false
                break
            }
            if complete {
                for sub in folder.subfolders
                where try Bool.fetchOne(folderRow, arguments: [sub]) == nil {
                    complete = false
                    break
                }
            }
            if !complete { try unstamp.execute(arguments: [folder.stamp.path]) }
        }
    }

    /// Marks the folder holding `path` for listing on the next walk: called by whoever
    /// deletes `path`'s row, in the same transaction.
    static func unstampFolder(of path: String, _ db: Database) throws {
        try db.cachedStatement(
            sql: "UPDATE folders SET ctime_ns = 0 WHERE path = ? AND ctime_ns != 0"
        )
        .execute(arguments: [FileScanner.parentPath(path)])
    }
}
