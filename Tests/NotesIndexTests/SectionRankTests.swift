import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// `notes_rank` (SectionRank) scores sections exactly as FTS5's `bm25()` does, with the
/// lengths looked up row by row (a command) or shared between searches (a long-lived
/// process), and reads the shared lengths again whenever the full-text table changed.
@Suite struct SectionRankTests {
    static func fixture() -> IndexFixture {
        IndexFixture(
            files: [
                "whales.md": "# Whales\n\nThe white whale swims. A whale, a whale, a whale.\n",
                "long.md": "# Voyage\n\n"
                    + String(repeating: "The ship sailed on and on over the grey sea. ", count: 40)
                    + "\n\n## Whale sighted\n\nOne whale, far off.\n",
                "tags.md":
                    "---\ntags: [whale, sea]\n---\n# Harbour\n\nRope and harpoon in the shed.\n",
            ], filler: 30)
    }

    static let queries = [
        "whale", "whale OR sea", "white whale", "\"white whale\"", "sea OR ship OR rope",
        "harp*", "gardens OR number", "title : whales OR body : ship",
    ]

    /// Every matching row's (rowid, notes_rank, bm25) for each query.
    static func scores(_ index: NoteIndex) throws -> [[(Int64, Double, Double)]] {
        try index.pool.read { db in
            try queries.map { query in
                try Row.fetchAll(
                    db,
                    sql:
                        "SELECT rowid, \(IndexSchema.ranking) AS rank, \(IndexSchema.bm25) AS bm25 FROM fts WHERE fts MATCH ?",
                    arguments: [query]
                ).map { ($0[0], $0[1], $0[2]) }
            }
        }
    }

    static func expectEqualToBM25(
        _ all: [[(Int64, Double, Double)]], everyQueryMatches: Bool = true
    ) {
        for (query, rows) in zip(queries, all) {
            #expect(!rows.isEmpty || !everyQueryMatches, "\(query) matches")
            for (rowid, rank, bm25) in rows {
                #expect(rank == bm25, "\(query) row \(rowid)")
            }
        }
    }

    @Test func aCommandRanksExactlyAsBM25() throws {
        let f = Self.fixture()
        let index = try f.refreshed()
        Self.expectEqualToBM25(try Self.scores(index))
        #expect(SectionRank.loads(of: index.databasePath) == 0, "a command shares no lengths")
    }

    @Test func aLongLivedProcessReadsTheLengthsOnceAndAgainAfterAChange() throws {
        let f = Self.fixture()
        let built = try f.refreshed()
        let index = try NoteIndex(
            workspace: built.workspace, directory: f.dir.path + "/index", longLived: true)
        let path = index.databasePath
        let before = SectionRank.loads(of: path)
        Self.expectEqualToBM25(try Self.scores(index))
        #expect(SectionRank.loads(of: path) == before + 1, "read once for every query")
        Self.expectEqualToBM25(try Self.scores(index))
        #expect(SectionRank.loads(of: path) == before + 1, "unchanged table: no second read")

        // A note grows (its section's length changes, the row count does not).
        f.write(
            "whales.md",
            "# Whales\n\nThe white whale swims. "
                + String(repeating: "It swims on. ", count: 50) + "A whale.\n")
        _ = try index.refresh()
        let grown = try Self.scores(index)
        Self.expectEqualToBM25(grown)
        #expect(SectionRank.loads(of: path) == before + 2, "read again after the change")

        // Another process's command changes the table: the long-lived one sees it.
        try FileManager.default.removeItem(atPath: f.root + "/tags.md")
        _ = try f.refreshed()
        let afterRemoval = try Self.scores(index)
        Self.expectEqualToBM25(afterRemoval, everyQueryMatches: false)
        #expect(SectionRank.loads(of: path) == before + 3)
        #expect(afterRemoval[0].count < grown[0].count, "the removed note no longer matches")

        // A rebuild by another process puts a new database's contents in place: read again,
        // even where FTS5's own records could read as before.
        _ = try f.open().rebuild()
        Self.expectEqualToBM25(try Self.scores(index), everyQueryMatches: false)
        #expect(SectionRank.loads(of: path) == before + 4, "a rebuilt index is read again")
    }

    /// The search a person and an agent run: a long-lived index answers with the same
    /// files and scores as a command.
    @Test func searchesAnswerTheSameWithSharedLengths() throws {
        let f = Self.fixture()
        let command = try f.refreshed()
        let longLived = try NoteIndex(
            workspace: command.workspace, directory: f.dir.path + "/index", longLived: true)
        for text in ["whale", "the white whale at sea", "rope harpoon", "ship"] {
            let a = try f.search(text, command)
            let b = try f.search(text, longLived)
            #expect(a.total > 0, "\(text)")
            #expect(a.hits.map(\.path) == b.hits.map(\.path), "\(text)")
            #expect(a.hits.map(\.score) == b.hits.map(\.score), "\(text)")
        }
    }
}
