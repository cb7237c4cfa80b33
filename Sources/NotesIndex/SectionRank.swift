import CSQLiteExtensions
import Foundation
import GRDB
import GRDBSQLite
import NotesCore

/// BM25 over the full-text table without a length lookup per matching row
/// (Sources/CSQLiteExtensions/include/section_rank.h): `notes_rank(fts, weights…)` scores as
/// FTS5's `bm25()` does, and on a long-lived process's connections takes every section's
/// length from one table of them per database, read once and again only after the
/// full-text table changes.
enum SectionRank {
    /// Registers `notes_rank` on a connection of the database at `path`; `sharingLengths`
    /// (a long-lived process) gives it the lengths the database's other connections share.
    static func register(_ db: Database, path: String, sharingLengths: Bool) throws {
        let sizes = sharingLengths ? lengths(of: path) : nil
        let code = notes_rank_register(db.sqliteConnection, sizes?.pointer)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: "cannot register the notes_rank FTS5 function")
        }
    }

    /// How many times the lengths of the database at `path` were read (for tests).
    static func loads(of path: String) -> Int {
        shared.withLock { $0[path].map { notes_section_sizes_loads($0.pointer) } ?? 0 }
    }

    /// One database's shared lengths (the C side counts references; this holds one).
    final class Lengths: @unchecked Sendable {
        let pointer: OpaquePointer?
        init() { pointer = notes_section_sizes_new() }
        deinit { notes_section_sizes_release(pointer) }
    }

    /// The lengths by database path. Entries stay for the process's life: a long-lived
    /// process opens one index, and lengths that no longer match their table are read again.
    private static let shared = Locked<[String: Lengths]>([:])

    private static func lengths(of path: String) -> Lengths {
        shared.withLock { table in
            if let known = table[path] { return known }
            let made = Lengths()
            table[path] = made
            return made
        }
    }
}
