import GRDB
import GRDBSQLite

/// A write statement (INSERT, UPDATE) bound and stepped on SQLite directly: the writer's
/// hot path. Through GRDB each row paid for argument boxing, observation hooks and binding
/// clears on top of SQLite's own work (docs/performance-history.md). Lives for one write
/// transaction on the writer's connection.
final class DirectStatement {
    private let statement: OpaquePointer
    private let connection: OpaquePointer
    private let sql: String
    private var index: Int32 = 0

    init(_ db: Database, _ sql: String) throws {
        guard let connection = db.sqliteConnection else {
            throw DatabaseError(
                resultCode: .SQLITE_MISUSE, message: "the database connection is closed", sql: sql)
        }
        var statement: OpaquePointer?
        self.connection = connection
        let code = sqlite3_prepare_v3(
            connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.statement = statement
        self.sql = sql
    }

    deinit { sqlite3_finalize(statement) }

    /// Binds the next parameter.
    func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(statement, index, value)
    }
    func bind(_ value: Int) { bind(Int64(value)) }
    func bind(_ value: Int?) {
        guard let value else {
            index += 1
            sqlite3_bind_null(statement, index)
            return
        }
        bind(Int64(value))
    }
    func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }
    func bind(_ value: Double) {
        index += 1
        sqlite3_bind_double(statement, index, value)
    }
    func bind(_ value: String?) {
        index += 1
        guard var value else {
            sqlite3_bind_null(statement, index)
            return
        }
        value.withUTF8 { bindText($0, Self.transient) }
    }

    /// Binds the next parameter to `bytes` (UTF-8 text) without SQLite copying them: they
    /// must stay valid until ``runDroppingBindings()`` returns (SQLITE_STATIC). For long
    /// texts bound for one run (an FTS row): the copy cost more than the bind itself.
    func bindInPlace(_ bytes: UnsafeBufferPointer<UInt8>) {
        index += 1
        bindText(bytes, Self.inPlace)
    }

    /// Binds parameter `index` to UTF-8 `bytes`, copied or not as `destructor` says.
    private func bindText(
        _ bytes: UnsafeBufferPointer<UInt8>, _ destructor: sqlite3_destructor_type?
    ) {
        // A NULL pointer would bind NULL: the empty string needs a real one.
        let pointer = UnsafeRawPointer(bytes.baseAddress ?? ("" as StaticString).utf8Start)
            .assumingMemoryBound(to: CChar.self)
        sqlite3_bind_text(statement, index, pointer, Int32(bytes.count), destructor)
    }

    /// ``run()``, then every parameter set back to NULL, so no pointer from
    /// ``bindInPlace(_:)`` outlives the bytes it points to.
    func runDroppingBindings() throws {
        defer { sqlite3_clear_bindings(statement) }
        try run()
    }

    /// Runs the statement with the values bound since the last run.
    func run() throws {
        index = 0
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            sqlite3_reset(statement)
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
        sqlite3_reset(statement)
    }

    /// SQLITE_STATIC: SQLite uses the bytes where they are.
    private static var inPlace: sqlite3_destructor_type? { nil }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
    private static var transient: sqlite3_destructor_type {
        unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }
}
