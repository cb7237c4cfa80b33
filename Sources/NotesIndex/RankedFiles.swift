import Foundation
import GRDB
import GRDBSQLite

/// The files matching a full-text query, each with its best section's score and its 3 best
/// sections (for snippets), ranked in one pass over the matching sections.
///
/// Ranking is the cost of a search: `bm25()` runs once per matching section. Grouping the
/// sections by file here, instead of in SQL with a window function, a GROUP BY and a join
/// sorted over every matching file, leaves a search for a common word costing about what
/// `bm25()` itself costs (docs/performance-history.md).
struct RankedFiles {
    struct Section {
        let id: Int64
        /// The ranking key: lower is better. FTS5's bm25 (negative, better is smaller), or for
        /// a plain-words query that bm25 weighed by how many of the words the section holds.
        let score: Double
        /// Which of the query's phrases the section holds (bit i for phrase i).
        let matched: Int64
        /// Whether a phrase occurs in the section's heading or text, not only in the note's
        /// title or tags: only such a section has a line to show the match in.
        let inText: Bool

        /// Whether `self` comes before `other` among a file's snippets: a section showing the
        /// match first, then by score.
        func shownBefore(_ other: Section) -> Bool {
            (inText ? 0 : 1, score, id) < (other.inText ? 0 : 1, other.score, other.id)
        }
    }

    struct File {
        let id: Int64
        /// The best (lowest) section score.
        var score: Double
        /// Up to 3 sections to show: those with the match in their heading or text first,
        /// then by score (a title match ranks every section of a note alike).
        var sections: [Section]
        /// The phrases any of those sections holds.
        var matched: Int64 { sections.reduce(0) { $0 | $1.matched } }
        /// The sections to take snippets from: those with the match in their heading or
        /// text; else (a match in the title or tags only) the best one, for its opening.
        var shownSections: [Section] {
            let inText = sections.filter(\.inText)
            return inText.isEmpty ? Array(sections.prefix(1)) : inText
        }
    }

    /// How a plain-words query's sections are ranked from their bm25 and the share of the
    /// query's words they hold.
    enum PlainWordsRanking: Sendable {
        /// By how many words first, then bm25.
        case wordsFirst
        /// bm25 × (share of the words)^power.
        case scaled(power: Double)
        /// bm25 alone (an OR of the words).
        case bm25

        /// `NOTES_PLAIN_RANKING=words-first|bm25|scaled:P`: a benchmarking knob
        /// (bench/search_quality.py compares them); the default is the measured best.
        static let current: PlainWordsRanking = {
            let text = ProcessInfo.processInfo.environment["NOTES_PLAIN_RANKING"] ?? ""
            if text == "words-first" { return .wordsFirst }
            if text == "bm25" { return .bm25 }
            if text.hasPrefix("scaled:"), let p = Double(text.dropFirst(7)) {
                return .scaled(power: p)
            }
            return .scaled(power: 2)
        }()

        func key(bm25: Double, matchedWords: Int, of words: Int) -> Double {
            switch self {
            case .bm25: return bm25
            case .wordsFirst: return bm25 - Double(matchedWords) * 1e9
            case .scaled(let power):
                return bm25 * pow(Double(matchedWords) / Double(max(words, 1)), power)
            }
        }
    }

    /// How many sections of a file keep their score (the snippets shown per hit).
    static let sectionsPerFile = 3

    private(set) var files: [File] = []
    private var position: [Int64: Int] = [:]

    var count: Int { files.count }

    /// No files (a search by meaning alone).
    init() {}

    /// Ranks every section matching `match` (an FTS5 expression). With `plainWords`, the
    /// count of its phrases (an OR of the query's words), sections are ranked by
    /// ``PlainWordsRanking/current`` from bm25 and how many of the words they hold.
    init(match: String, plainWords: Int? = nil, _ db: Database) throws {
        let ranking = PlainWordsRanking.current
        let statement = try db.cachedStatement(
            sql: "SELECT rowid, \(IndexSchema.ranking), notes_matched(fts) FROM fts"
                + " WHERE fts MATCH ?")
        try statement.setArguments([match])
        // Raw column reads: a common word matches thousands of sections, and decoding each
        // through GRDB's `Row` was a large share of the ranking's cost.
        let raw = statement.sqliteStatement
        defer { sqlite3_reset(raw) }
        let inTextBit: Int64 = 1 << 62
        while true {
            let code = sqlite3_step(raw)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code),
                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            let id = sqlite3_column_int64(raw, 0)
            let bm25 = sqlite3_column_double(raw, 1)
            let flags = sqlite3_column_int64(raw, 2)
            let mask = flags & ~inTextBit
            let score =
                plainWords.map {
                    ranking.key(bm25: bm25, matchedWords: mask.nonzeroBitCount, of: $0)
                } ?? bm25
            let section = Section(
                id: id, score: score, matched: mask, inText: flags & inTextBit != 0)
            let fileID = id >> IndexSchema.sectionBits
            // FTS5 returns rows in rowid order, so a file's sections usually arrive together.
            let index: Int
            if let last = files.indices.last, files[last].id == fileID {
                index = last
            } else if let known = position[fileID] {
                index = known
            } else {
                position[fileID] = files.count
                files.append(File(id: fileID, score: score, sections: [section]))
                continue
            }
            files[index].score = min(files[index].score, score)
            Self.insert(section, into: &files[index].sections)
        }
    }

    /// Keeps the section list in the order shown and at most ``sectionsPerFile`` long.
    private static func insert(_ section: Section, into sections: inout [Section]) {
        let at = sections.firstIndex { section.shownBefore($0) } ?? sections.count
        guard at < sectionsPerFile else { return }
        sections.insert(section, at: at)
        if sections.count > sectionsPerFile { sections.removeLast() }
    }

    /// Multiplies the scores of the files in `ids` (scores are negative: a factor above 1
    /// ranks them higher).
    mutating func boost(_ ids: Set<Int64>, by factor: Double) {
        for i in files.indices where ids.contains(files[i].id) {
            files[i].score *= factor
            files[i].sections = files[i].sections.map {
                Section(
                    id: $0.id, score: $0.score * factor, matched: $0.matched, inText: $0.inText)
            }
        }
    }

    /// Drops the files not in `allowed` (the filters' verdict).
    mutating func keep(_ allowed: Set<Int64>) {
        retain { allowed.contains($0) }
    }

    /// Drops the files in `ids`.
    mutating func drop(_ ids: Set<Int64>) {
        retain { !ids.contains($0) }
    }

    /// Keeps the files whose id `keeps` accepts, in their order.
    private mutating func retain(_ keeps: (Int64) -> Bool) {
        files.removeAll { !keeps($0.id) }
        position = Dictionary(uniqueKeysWithValues: files.enumerated().map { ($1.id, $0) })
    }

    func file(_ id: Int64) -> File? {
        position[id].map { files[$0] }
    }

    func contains(_ id: Int64) -> Bool {
        position[id] != nil
    }

    /// The `limit` best files, plus any tied in score with the last of them (the caller
    /// breaks ties by path, which needs the rows).
    func best(_ limit: Int) -> [File] {
        guard files.count > limit else { return files }
        var sorted = files
        sorted.sort { ($0.score, $0.id) < ($1.score, $1.id) }
        let cut = sorted[limit - 1].score
        var end = limit
        while end < sorted.count && sorted[end].score == cut { end += 1 }
        return Array(sorted[..<end])
    }

    /// The files' ids as a JSON array, for `json_each()` in SQL.
    var idsJSON: String { Self.json(files.map(\.id)) }

    static func json(_ ids: [Int64]) -> String {
        var text = "["
        text.reserveCapacity(ids.count * 8)
        for (i, id) in ids.enumerated() {
            if i > 0 { text += "," }
            text += String(id)
        }
        return text + "]"
    }
}
