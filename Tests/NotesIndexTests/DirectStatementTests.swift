import GRDB
import Testing

@testable import NotesIndex

/// The writer's statements bound on SQLite directly (``DirectStatement``).
@Suite struct DirectStatementTests {
    @Test func valuesBindAsGRDBWouldAndErrorsLeaveTheStatementUsable() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE t (a TEXT NOT NULL UNIQUE, b TEXT, c INTEGER, d REAL, e INTEGER)"
            )
            let insert = try DirectStatement(
                db, "INSERT INTO t (a, b, c, d, e) VALUES (?, ?, ?, ?, ?)")
            let rows: [(String, String?, Int?, Double, Bool)] = [
                ("", nil, nil, 0.5, true), ("é x", "", 42, -1e300, false),
                (String(repeating: "w", count: 100_000), "z", -7, 3, true),
            ]
            for (a, b, c, d, e) in rows {
                insert.bind(a)
                insert.bind(b)
                insert.bind(c)
                insert.bind(d)
                insert.bind(e)
                try insert.run()
            }
            let stored = try Row.fetchAll(
                db,
                sql: "SELECT a, b, c, d, e, typeof(a), typeof(b), typeof(c) FROM t ORDER BY rowid")
            // "" is text, not NULL
            #expect(stored.map { $0[0] as String } == rows.map(\.0), "texts differ")
            #expect(stored.map { $0[5] as String } == ["text", "text", "text"])
            #expect(stored.map { $0[6] as String } == ["null", "text", "text"])
            #expect(stored.map { $0[2] as Int? } == [nil, 42, -7])
            #expect(stored.map { $0[3] as Double } == [0.5, -1e300, 3])
            #expect(stored.map { $0[4] as Bool } == [true, false, true])

            // A failing row throws SQLite's error and leaves the statement ready for the next.
            insert.bind("z")
            insert.bind("dup")
            insert.bind(1)
            insert.bind(1.0)
            insert.bind(true)
            try insert.run()
            insert.bind("z")
            insert.bind("dup")
            insert.bind(1)
            insert.bind(1.0)
            insert.bind(true)
            #expect(throws: DatabaseError.self) { try insert.run() }
            do {
                insert.bind("z")
                insert.bind(nil as String?)
                insert.bind(nil as Int?)
                insert.bind(0.0)
                insert.bind(false)
                try insert.run()
            } catch let error as DatabaseError {
                #expect(error.resultCode == .SQLITE_CONSTRAINT)
                #expect(error.message?.contains("UNIQUE") == true)
            }
            insert.bind("last")
            insert.bind(nil as String?)
            insert.bind(nil as Int?)
            insert.bind(0.0)
            insert.bind(false)
            try insert.run()
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM t") == 5)
        }
    }
}
