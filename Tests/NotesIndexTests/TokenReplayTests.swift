import CSQLiteExtensions
import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// The writer inserts FTS rows from tokens recorded on the parsing threads (TokenReplay,
/// Sources/CSQLiteExtensions/include/token_replay.h). A replay must index exactly what tokenizing would have, and must
/// really happen (otherwise the writer silently does the work twice).
@Suite struct TokenReplayTests {
    func database() throws -> DatabaseQueue {
        let queue = try DatabaseQueue(configuration: .withTokenReplay)
        try queue.write { db in
            try db.execute(
                sql:
                    "CREATE VIRTUAL TABLE fts USING fts5(body, tokenize = '\(TokenReplay.tokenizer)')"
            )
        }
        return queue
    }

    func rows(_ query: String, _ db: Database) throws -> [Int64] {
        try Int64.fetchAll(
            db, sql: "SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY rowid", arguments: [query])
    }

    /// Arms `text`'s column with the recording of `recordedFrom` and inserts `text`.
    func insert(
        _ rowid: Int64, _ text: String, armedAs armedText: String, recordedFrom: String,
        _ db: Database
    ) throws -> Int {
        let tokens = try #require(RecordedTokens([recordedFrom]))
        var armedText = armedText
        _ = TokenReplay.replayedCount()
        try armedText.withUTF8 { bytes in
            try TokenReplay.replaying([tokens.column(0, text: bytes)]) {
                try db.execute(
                    sql: "INSERT INTO fts(rowid, body) VALUES (?, ?)", arguments: [rowid, text])
            }
        }
        return TokenReplay.replayedCount()
    }

    @Test func anArmedRecordingIsWhatGetsIndexedAndOnlyForItsOwnText() throws {
        try database().write { db in
            // A recording armed for exactly the bound text is used: the row is indexed under
            // the recording's words (a deliberately different text, to see which path ran).
            #expect(
                try insert(1, "alpha beta", armedAs: "alpha beta", recordedFrom: "omega", db) == 1)
            #expect(try rows("omega", db) == [1])
            #expect(try rows("alpha", db) == [])
            // A recording armed for other bytes (one byte off) is not used: tokenized live.
            #expect(
                try insert(2, "alpha beta", armedAs: "alpha betb", recordedFrom: "omega", db) == 0)
            #expect(try rows("alpha", db) == [2])
            // Nothing armed: tokenized live; queries always are.
            try db.execute(sql: "INSERT INTO fts(rowid, body) VALUES (3, 'Whales running')")
            #expect(try rows("whale", db) == [3])
            #expect(try rows("run*", db) == [3])
            // Deleting a row tokenizes its stored text live, which undoes the replayed tokens
            // only when they match; row 1's do not (that is why replay demands identical bytes).
            try db.execute(sql: "DELETE FROM fts WHERE rowid IN (2, 3)")
            #expect(try rows("alpha", db) == [])
            #expect(try rows("whale", db) == [])
        }
    }

    @Test func aRecordingMatchesTheTokenizerOnVariedText() throws {
        // Diacritics, CJK (with FTSText's separators), stems, apostrophes, digits, emoji,
        // long text, empty text: inserted from a recording vs tokenized live, the index's
        // every token instance (term, column, offset) is the same.
        let texts = [
            "", "Café naïve résumé — Ahab's whales were hunted in 1851.",
            FTSText.prepare("后台执行 とうきょう 서울 mixed 中文text"),
            String(
                repeating: "The quick brown fox jumps over the lazy dog; running runners ran. ",
                count: 300),
            "emoji 🐋 and symbols ©®™ x²  tabs\tand\nnew lines",
            "UPPER lower MiXeD kebab-case snake_case dotted.name",
            // The recording's long form: a token over 254 bytes, a gap over 254, a span over 254.
            "short " + String(repeating: "x", count: 300) + " after"
                + String(repeating: " -", count: 200) + " end",
            String(repeating: "é", count: 200) + " " + String(repeating: "Ё", count: 40_000),
        ]
        // What the tokenizer emits (token, flags, byte offsets) equals what its recording replays.
        let recorded = try #require(RecordedTokens(texts))
        for (i, var text) in texts.enumerated() {
            let live = TokenLog()
            let replayed = TokenLog()
            text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    #expect(
                        notes_tokens_tokenize(
                            $0.baseAddress, Int32($0.count), live.context, TokenLog.collect) == 0)
                }
                let column = recorded.column(i, text: bytes)
                #expect(
                    notes_tokens_replay(
                        column.tokens, column.tokens_length, replayed.context, TokenLog.collect)
                        == 0)
            }
            #expect(live.tokens == replayed.tokens, "\(i)")
            #expect(text.isEmpty || !live.tokens.isEmpty)
        }

        // And an index written from recordings equals one tokenized live.
        let replayed = try database()
        let live = try database()
        try replayed.write { db in
            for (i, text) in texts.enumerated() {
                let replays = try insert(Int64(i + 1), text, armedAs: text, recordedFrom: text, db)
                #expect(replays == 1)
            }
        }
        try live.write { db in
            for (i, text) in texts.enumerated() {
                try db.execute(
                    sql: "INSERT INTO fts(rowid, body) VALUES (?, ?)", arguments: [i + 1, text])
            }
        }
        let a = try replayed.write(Self.instances)
        let b = try live.write(Self.instances)
        #expect(a.count > 3_000)
        #expect(a == b)
    }

    /// Every token instance of the index: term, row, column, offset.
    static func instances(_ db: Database) throws -> [String] {
        try db.execute(
            sql:
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, fts, instance)"
        )
        return try Row.fetchAll(
            db, sql: "SELECT term, doc, col, offset FROM temp.vocab ORDER BY term, doc, col, offset"
        ).map {
            "\($0[0] as String) \($0[1] as Int64) \($0[2] as String) \($0[3] as Int64)"
        }
    }

    @Test func theRefreshReplaysEveryColumnAndIndexesWhatALiveRebuildWould() throws {
        let f = IndexFixture(filler: 3)
        f.write(
            "a.md",
            "---\ntitle: Café notes\ntags: [whales, 航海]\n---\n# Ahab's log\n\nThe white whale, naïvely hunted.\n\n## 后台执行\n\n中文 text and `code spans`.\n"
        )
        f.write(
            "b.txt",
            String(
                repeating: "A long plain text line about running whalers and harpoons. ",
                count: 1_000))
        f.write("c.md", "no heading, just [[a link]] and #tag words\n")
        let index = try f.open()
        let report = try index.refresh()
        #expect(report.added == 6)

        let db = try DatabaseQueue(path: index.databasePath, configuration: .withTokenReplay)
        let rows = try db.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM fts")! }
        #expect(rows > 6)
        // Four columns per FTS row, each inserted from its recording.
        #expect(report.replayedTexts == 4 * rows)

        let recorded = try db.write(Self.instances)
        // tokenizes every row live
        try db.write { try $0.execute(sql: "INSERT INTO fts(fts) VALUES ('rebuild')") }
        let rebuilt = try db.write(Self.instances)
        #expect(recorded.count > 2_000)
        #expect(recorded == rebuilt)
        try db.write {
            try $0.execute(sql: "INSERT INTO fts(fts, rank) VALUES ('integrity-check', 1)")
        }
    }
}

/// Collects tokens from FTS5's token callback.
final class TokenLog {
    var tokens: [String] = []
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static let collect: notes_token_callback = { context, flags, token, length, start, end in
        let log = Unmanaged<TokenLog>.fromOpaque(context!).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: token, count: Int(length))
        log.tokens.append("\(String(decoding: bytes, as: UTF8.self)) \(flags) \(start) \(end)")
        return 0
    }
}

extension Configuration {
    /// A plain GRDB configuration that registers the index's FTS tokenizer (`notes_replay`),
    /// for tests that open an index or an FTS table directly.
    static var withTokenReplay: Configuration {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try TokenReplay.register(db) }
        return configuration
    }
}
