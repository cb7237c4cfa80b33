import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// `NoteIndex.search` ranks in Swift (``RankedFiles``) for speed. This checks it against an
/// independent reference: the same answer computed entirely in SQL (GROUP BY, join,
/// ORDER BY), on random workspaces with duplicate files (tied scores),
/// many sections per file, filters, exclusions, sorts and limits.
@Suite struct RankingTests {
    static let words = [
        "whale", "sea", "ship", "harpoon", "captain", "storm", "island", "rope", "lamp", "oil",
        "tide", "gull",
    ]

    /// A random workspace: notes with 1–12 sections of random words, some exact copies.
    static func workspace(_ random: inout SeededGenerator) -> IndexFixture {
        let fixture = IndexFixture(filler: 5)
        var texts: [String] = []
        for i in 0..<60 {
            if !texts.isEmpty && Int.random(in: 0..<6, using: &random) == 0 {
                fixture.write("copies/c\(i).md", texts.randomElement(using: &random)!)
                continue
            }
            var text = ""
            if Bool.random(using: &random) {
                text +=
                    "---\ntags: [\(words.randomElement(using: &random)!)]\ncreated_by: \(Bool.random(using: &random) ? "agent" : "user")\n---\n"
            }
            text += "# Note \(i) \(words.randomElement(using: &random)!)\n\n"
            for s in 0..<Int.random(in: 1...12, using: &random) {
                text +=
                    "## Part \(s) \(Int.random(in: 0..<4, using: &random) == 0 ? words.randomElement(using: &random)! : "")\n\n"
                let count = Int.random(in: 3...40, using: &random)
                text +=
                    (0..<count).map { _ in words.randomElement(using: &random)! }.joined(
                        separator: " ") + ".\n\n"
            }
            texts.append(text)
            fixture.write(
                "\(["notes", "Research/a", "Research/b"].randomElement(using: &random)!)/n\(i).md",
                text)
        }
        return fixture
    }

    static func query(_ random: inout SeededGenerator) -> String {
        let a = words.randomElement(using: &random)!
        let b = words.randomElement(using: &random)!
        switch Int.random(in: 0..<9, using: &random) {
        case 0: return a
        case 1: return "\(a) \(b)"
        case 2: return "\"\(a) \(b)\""
        case 3: return "\(a) OR \(b)"
        case 4: return String(a.prefix(3)) + "*"
        case 5: return "\(a) -\(b)"
        case 6: return "\(a) path:Research/**"
        case 7: return "\(a) AND \(b)"
        default: return "\(a) by:agent"
        }
    }

    @Test(arguments: 0..<4) func swiftRankingEqualsTheSQLReference(seed: UInt64) throws {
        var random = SeededGenerator(seed: 1_000 + seed)
        let fixture = Self.workspace(&random)
        let index = try fixture.refreshed()
        let database = try DatabaseQueue(
            path: fixture.dir.path + "/index/index.sqlite", configuration: .withTokenReplay)
        var compared = 0
        for _ in 0..<60 {
            var query = try SearchQuery(
                parsing: Self.query(&random), isMetadataKey: index.hasMetadataKey)
            query.limit = [1, 3, 10, 100].randomElement(using: &random)!
            query.sort = [.relevance, .relevance, .path, .modified, .title].randomElement(
                using: &random)!
            let results = try index.search(query)
            let reference = try Self.reference(query, database)
            #expect(results.total == reference.total, "\(query.text)")
            #expect(
                results.hits.map(\.path) == reference.paths, "\(query.text) sorted by \(query.sort)"
            )
            #expect(results.hits.map(\.score) == reference.scores, "\(query.text)")
            for (hit, sections) in zip(results.hits, reference.sections) where query.withSnippets {
                #expect(hit.snippets.map(\.section) == sections, "\(query.text) \(hit.path)")
            }
            if reference.total > 0 { compared += 1 }
        }
        #expect(compared > 20, "most random queries should match something")
    }

    /// The page's selection (``NoteIndex/first(_:of:by:tied:)``) is the sorted order's first
    /// items and every item tied in key with the last of them, on many ties.
    @Test func theFirstItemsAndTheirTiesAreTheSortedOrdersPrefix() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<300 {
            let items = (0..<Int.random(in: 0...60, using: &random)).map {
                (key: Double(Int.random(in: 0..<8, using: &random)), id: Int64($0))
            }
            let count = Int.random(in: 1...12, using: &random)
            let before = { (a: (key: Double, id: Int64), b: (key: Double, id: Int64)) in
                (a.key, a.id) < (b.key, b.id)
            }
            let sorted = items.sorted(by: before)
            var end = min(count, sorted.count)
            while end < sorted.count && sorted[end].key == sorted[end - 1].key { end += 1 }
            let chosen = NoteIndex.first(count, of: items, by: before, tied: { $0.key == $1.key })
            #expect(chosen.map(\.id) == sorted[..<end].map(\.id), "\(items) first \(count)")
        }
    }

    /// The all-SQL formulation (what `search` ran before issue 7's second pass).
    static func reference(_ query: SearchQuery, _ database: DatabaseQueue) throws -> (
        total: Int, paths: [String], scores: [Double?], sections: [[String]]
    ) {
        let plain = query.isPlainWords ? query.significantTerms : nil
        let match =
            try plain.map(FTSExpression.anyOf) ?? #require(FTSExpression.match(for: query.terms))
        // A plain-words query's key: bm25 × (share of the words held)², the default ranking.
        // notes_matched's bits 0–61 are the phrases a section holds.
        let phraseBits = (Int64(1) << 62) - 1
        // A file whose title holds every word typed is favoured (×4).
        let titled = query.terms.map { "title : " + FTSExpression.render($0) }.joined(
            separator: " AND ")
        let key =
            plain.map {
                "\(IndexSchema.bm25) * (popcount(notes_matched(fts) & \(phraseBits)) * 1.0 / \($0.count)) * (popcount(notes_matched(fts) & \(phraseBits)) * 1.0 / \($0.count))"
                    + " * (CASE WHEN rowid >> 24 IN (SELECT rowid >> 24 FROM fts WHERE fts MATCH '\(titled.replacingOccurrences(of: "'", with: "''"))') THEN 4 ELSE 1 END)"
            }
            ?? IndexSchema.bm25
        var (filterSQL, filterArgs) = NoteIndex.filterClause(
            query.filters, hiding: query.filters.hideProtected ? .askingThePolicy : .nothing)
        // An AND of groups: each somewhere in the file.
        for group in plain == nil ? FTSExpression.required(for: query.terms) ?? [] : [] {
            filterSQL += " AND f.id IN (SELECT rowid >> 24 FROM fts WHERE fts MATCH ?)"
            filterArgs.append(group)
        }
        if let exclusion = FTSExpression.exclusion(for: query.terms) {
            filterSQL += " AND f.id NOT IN (SELECT rowid >> 24 FROM fts WHERE fts MATCH ?)"
            filterArgs.append(exclusion)
        }
        let order = query.sort == .relevance ? "m.score, f.path" : NoteIndex.orderClause(query.sort)
        // A section shows a match when any of the query's phrases is in its heading or text
        // (in an AND query the others may be in the title only).
        let anyPhrase = FTSExpression.anyOf(query.terms.filter { !$0.negated })
        return try database.read { db in
            // The filter functions the index registers on its own connections.
            db.add(
                function: DatabaseFunction("notes_glob", argumentCount: 2, pure: true) { values in
                    Glob(String.fromDatabaseValue(values[0])!).matches(
                        String.fromDatabaseValue(values[1])!)
                })
            db.add(
                function: DatabaseFunction("notes_protected", argumentCount: 1, pure: true) { _ in
                    false
                })
            db.add(
                function: DatabaseFunction("popcount", argumentCount: 1, pure: true) { values in
                    Int64.fromDatabaseValue(values[0])!.nonzeroBitCount
                })
            let rows = try Row.fetchAll(
                db,
                sql: """
                    WITH r AS MATERIALIZED (SELECT rowid AS sid, rowid >> 24 AS file_id, \(key) AS score FROM fts WHERE fts MATCH ?),
                         m AS (SELECT file_id, MIN(score) AS score FROM r GROUP BY file_id)
                    SELECT f.path, m.score AS score, m.file_id AS file_id, COUNT(*) OVER () AS total
                    FROM m JOIN files f ON f.id = m.file_id
                    WHERE \(filterSQL)
                    ORDER BY \(order) LIMIT ?
                    """, arguments: StatementArguments([match] + filterArgs + [query.limit]))
            var sections: [[String]] = []
            for row in rows {
                // The snippets: the file's sections whose heading or text matches, best score
                // first (at most 3); when none does (a match in the title or tags only), its
                // best section alone.
                let fileID: Int64 = row["file_id"]
                let range: [Int64] = [fileID << 24, (fileID << 24) + (1 << 24) - 1]
                let scored = try Row.fetchAll(
                    db,
                    sql:
                        "SELECT rowid AS id, \(key) AS score FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ?",
                    arguments: [match, range[0], range[1]]
                ).map { (score: $0["score"] as Double, id: $0["id"] as Int64) }
                    .sorted { ($0.score, $0.id) < ($1.score, $1.id) }
                let inText = Set(
                    try Int64.fetchAll(
                        db,
                        sql: "SELECT rowid FROM fts WHERE fts MATCH ? AND rowid BETWEEN ? AND ?",
                        arguments: ["{heading body} : (" + anyPhrase + ")", range[0], range[1]]))
                let shownIDs =
                    scored.contains { inText.contains($0.id) }
                    ? scored.filter { inText.contains($0.id) }.prefix(3).map(\.id)
                    : scored.prefix(1).map(\.id)
                sections.append(
                    try shownIDs.map {
                        try String.fetchOne(
                            db, sql: "SELECT heading FROM sections WHERE id = ?", arguments: [$0])!
                    })
            }
            // Scores relative to the best of the page.
            let best = rows.map { $0["score"] as Double }.min() ?? 0
            let scores = rows.map { row -> Double? in
                ((best < 0 ? (row["score"] as Double) / best : 1) * 1000).rounded() / 1000
            }
            return (rows.first?["total"] ?? 0, rows.map { $0["path"] }, scores, sections)
        }
    }
}
