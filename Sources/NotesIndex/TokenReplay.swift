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

/// The FTS5 tokens of a list of texts, recorded in one buffer on the thread that creates it
/// and only read afterwards.
final class RecordedTokens: @unchecked Sendable {
    // Written only in `init`; read-only once shared (hence @unchecked Sendable).
    private var buffer: notes_token_buffer
    private let ranges: [Range<Int>]

    /// Records each text's tokens; nil when the tokenizer fails.
    init?(_ texts: [String]) {
        var buffer = notes_token_buffer()
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(texts.count)
        // A recording takes 3 bytes per token plus the token: about 1.3 times its text
        // (up to 2 for one-letter words); growing the buffer copied it.
        let textBytes = texts.reduce(0) { $0 + $1.utf8.count }
        guard notes_tokens_reserve(&buffer, textBytes + textBytes / 2 + 64) == SQLITE_OK else {
            return nil
        }
        for text in texts {
            var text = text
            let start = buffer.count
            let code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    notes_tokens_record($0.baseAddress, Int32(bytes.count), &buffer)
                }
            }
            guard code == SQLITE_OK else {
                notes_tokens_free(&buffer)
                return nil
            }
            ranges.append(start..<buffer.count)
        }
        self.buffer = buffer
        self.ranges = ranges
    }

    deinit { notes_tokens_free(&buffer) }

    /// The replay entry for text `index`, which is `text` as bound to the INSERT.
    func column(_ index: Int, text: UnsafeBufferPointer<UInt8>) -> notes_token_column {
        let range = ranges[index]
        return notes_token_column(
            text: UnsafeRawPointer(text.baseAddress)?.assumingMemoryBound(to: CChar.self),
            length: Int32(text.count),
            tokens: buffer.bytes.map { UnsafePointer($0 + range.lowerBound) },
            tokens_length: range.count)
    }
}
