import CSQLiteExtensions
import GRDB
import GRDBSQLite
import NotesCore

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// How the index's write-ahead log is kept between `notes` processes.
///
/// SQLite's default is for the last connection to close to checkpoint the log and delete
/// it; the next process's `DatabasePool` then finds no log and writes a throwaway
/// transaction to create one. So every `notes search` wrote, took the write lock and
/// fsynced three times even when nothing had changed. Instead every connection keeps the
/// log and skips the checkpoint on close (``keep(_:)``): a command that only reads writes
/// nothing.
///
/// The cost moves to whoever opens the index next: SQLite rebuilds its in-memory map of
/// the log by reading all of it. So the log is kept short: when a process opens or lets
/// go of the index and the log is over ``threshold``, ``compact(_:logPath:)`` copies it
/// into the database, truncates it, and writes one small transaction so that a log exists
/// for the next process. Writers in between are bounded by SQLite's automatic checkpoint
/// (1,000 pages). A process killed before compacting leaves a longer log, which is still
/// correct and is compacted by the next process that opens the index.
enum WALSharing {
    /// The longest log left for the next process to read (it reads all of it when it opens).
    static let threshold = 1 << 20

    /// Keeps the log when `db` closes and skips the checkpoint on close. Every connection
    /// to the index must do this: the last one to close decides.
    static func keep(_ db: Database) throws {
        let code = notes_wal_keep_between_processes(db.sqliteConnection)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: "cannot keep the write-ahead log between processes")
        }
    }

    /// The size of the log at `logPath` in bytes (0 when there is none).
    static func size(of logPath: String) -> Int {
        var info = stat()
        return stat(logPath, &info) == 0 ? Int(info.st_size) : 0
    }

    /// When the log is over ``threshold``: checkpoints it into the database, truncates it
    /// and leaves a log of one small transaction. Never waits: while another process reads
    /// or writes, the log is left for a later compaction. Returns whether it compacted.
    @discardableResult
    static func compact(_ pool: DatabasePool, logPath: String) -> Bool {
        guard size(of: logPath) > threshold else { return false }
        // Reentrant: an index may be let go from inside a write on its own pool.
        return
            (try? pool.unsafeReentrantWrite { db -> Bool in
                let timeout = try Int.fetchOne(db, sql: "PRAGMA busy_timeout") ?? 0
                try db.execute(sql: "PRAGMA busy_timeout = 0")
                defer { try? db.execute(sql: "PRAGMA busy_timeout = \(timeout)") }
                // Row: (busy, frames in the log, frames checkpointed); busy = 1 when another
                // connection kept the checkpoint from finishing.
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                guard let row, row[0] as Int == 0 else { return false }
                // A row that changes (SQLite writes nothing for an UPDATE to the same value).
                try db.inTransaction(.immediate) {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('log_compacted', ?)",
                        arguments: [String(Timestamp.now())])
                    return .commit
                }
                return true
            }) ?? false
    }
}
