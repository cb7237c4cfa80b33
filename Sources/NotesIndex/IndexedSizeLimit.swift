import GRDB
import NotesCore

/// The size past which a file is listed but its text not indexed (`limits.index_max_bytes`),
/// as the index last applied it (`meta.index_max_bytes`). A refresh reads a file again only
/// when its stat changes, so without this a changed limit would reach a file only when the
/// file changed: a refresh of the whole workspace under another limit also reads again the
/// files whose size lies between the two, and then records the limit it applied.
enum IndexedSizeLimit {
    static let metaKey = "index_max_bytes"

    /// The limit applied before, for an index that has not recorded one: the default.
    static let assumedBefore = WorkspaceConfig().indexMaxBytes

    /// The limit the index's files were last read under, nil when none is recorded.
    static func applied(_ db: Database) throws -> Int? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [metaKey])
            .flatMap { Int($0) }
    }

    /// Records `limit` as the one the index's files were read under.
    static func record(_ limit: Int, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            arguments: [metaKey, String(limit)])
    }

    /// The sizes of the files that moving from `applied` to `limit` takes across the limit
    /// (indexed before and too large now, or the reverse); nil when the limit is unchanged.
    static func sizesCrossed(from applied: Int?, to limit: Int) -> ClosedRange<Int>? {
        let before = applied ?? assumedBefore
        guard before != limit else { return nil }
        return (min(before, limit) + 1)...max(before, limit)
    }
}
