import CSQLiteExtensions
import GRDB
import GRDBSQLite

/// FTS5 tokenizing moved off the writer (Sources/CSQLiteExtensions/include/token_replay.h): the parsing threads record
/// the tokens of each text (``RecordedTokens``), and the writer's INSERT replays them.
/// FTS5 tokenizes every indexed column inside the INSERT, on the one thread that holds the
/// write lock: a large share of the writer's time on large notes
/// (docs/performance-history.md).
enum TokenReplay {
    /// The FTS table's `tokenize` option: `notes_replay` wrapping the tokenizer recordings
    /// come from. A text without an armed recording (every query, delete, snippet) goes
    /// straight to the wrapped tokenizer.
    static let tokenizer = "notes_replay " + NOTES_TOKENS_RECORDED

    /// Registers `notes_replay` on a connection. Every connection that opens the index needs
    /// it (SQLite answers "no such tokenizer" otherwise).
    static func register(_ db: Database) throws {
        let code = notes_tokens_register(db.sqliteConnection)
        guard code == SQLITE_OK else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: "cannot register the notes_replay FTS5 tokenizer")
        }
    }

    /// Runs `body` (one INSERT) with the calling thread's replay armed for `columns`.
    static func replaying<T>(_ columns: [notes_token_column], _ body: () throws -> T) rethrows -> T
    {
        columns.withUnsafeBufferPointer { notes_tokens_arm($0.baseAddress, Int32($0.count)) }
        defer { notes_tokens_disarm() }
        return try body()
    }

    /// How many texts this thread replayed since the last call (for tests).
    static func replayedCount() -> Int { notes_tokens_replayed() }
}
