import Foundation
import GRDB
import NotesCore

/// The meaning side of a search and its fusion with the words: the knobs, a file's best
/// passage, and the fused order (``NoteIndex/searchOnce(_:)`` runs the steps).
extension NoteIndex {
    /// Why a search by meaning alone cannot run.
    static func noMeaningSide(_ query: SearchQuery) -> NotesError {
        NotesError(
            .invalidArgument,
            query.embedder == nil
                ? "semantic search needs the embedding model, which is not installed or does not load"
                : "no passages are embedded with the installed model yet, so nothing can be found by meaning",
            hint: query.embedder == nil
                ? "search by words instead (mode lexical), or install the embedding model: `notes model install` (docs/search.md)"
                : "run `notes index` to embed the workspace")
    }

    /// How many files the meaning side ranks before fusion.
    static let semanticDepth = 100
    /// The least cosine similarity for a file found only by meaning to be listed: below it
    /// a passage is about something else (all-MiniLM-L6-v2 puts unrelated texts near 0–0.2;
    /// 0.35 dropped right answers of the sample workspace's questions in semantic mode).
    static let meaningOnlyFloor: Float = {
        if let text = ProcessInfo.processInfo.environment["NOTES_MEANING_FLOOR"],
            let value = Float(text)
        {
            return value
        }
        return 0.25
    }()
    /// How much the meaning side counts in the fusion of a plain-words query, against 1 for
    /// the words: a question's words match many files by chance, its meaning fewer.
    static let semanticWeight: Double = {
        if let text = ProcessInfo.processInfo.environment["NOTES_SEMANTIC_WEIGHT"],
            let value = Double(text)
        {
            return value
        }
        return 1.5
    }()
    /// Reciprocal rank fusion's constant: a file's fused score is Σ 1/(k + rank) over the sides.
    static let fusionK: Double = {
        if let text = ProcessInfo.processInfo.environment["NOTES_FUSION_K"],
            let value = Double(text)
        {
            return value
        }
        return 20
    }()

    /// A file's best passage for the query's vector.
    struct PassageMatch {
        let file: Int64
        let section: Int64
        let line: Int
        let similarity: Float
        /// What the file is ranked by on the meaning side (``VectorTable/Match/score``).
        let score: Float
    }

    /// One file of a ranked answer: its ranking key (lower is better) and what found it.
    struct FusedEntry {
        let file: Int64
        let key: Double
        /// How good a match it is, larger is better, comparable within one answer: the words'
        /// score, the passage's score (its similarity less its file's length penalty), or the
        /// fused score.
        let relevance: Double
        let words: RankedFiles.File?
        let meaning: PassageMatch?
    }

    /// The passages whose section still has the text they were embedded from, and the files
    /// whose nearest passage was made from text since changed (`stale`: their new text has no
    /// vector yet, so meaning cannot say how near they are).
    static func current(_ matches: [VectorTable.Match], _ table: VectorTable, _ db: Database) throws
        -> (passages: [PassageMatch], stale: Set<Int64>)
    {
        guard !matches.isEmpty else { return ([], []) }
        let ids = matches.map { table.sectionIDs[$0.row] }
        var digests: [Int64: Int64] = [:]
        for row in try Row.fetchAll(
            db,
            sql: "SELECT id, fts_digest FROM sections WHERE id IN (SELECT value FROM json_each(?))",
            arguments: [RankedFiles.json(ids)])
        {
            digests[row["id"]] = row["fts_digest"]
        }
        var stale = Set<Int64>()
        let passages = matches.compactMap { match -> PassageMatch? in
            let section = table.sectionIDs[match.row]
            guard digests[section] == table.digests[match.row] else {
                stale.insert(section >> IndexSchema.sectionBits)
                return nil
            }
            return PassageMatch(
                file: section >> IndexSchema.sectionBits, section: section,
                line: Int(table.lines[match.row]), similarity: match.similarity,
                score: match.score)
        }
        return (passages, stale)
    }

    /// The files of `ids` that pass the filters.
    static func allowed(
        _ ids: [Int64], _ filterSQL: String, _ filterArgs: [(any DatabaseValueConvertible)?],
        _ db: Database
    ) throws -> Set<Int64> {
        try Set(
            Int64.fetchAll(
                db,
                sql: """
                    SELECT f.id FROM files f WHERE f.id IN (SELECT value FROM json_each(?)) AND \(filterSQL)
                    """, arguments: StatementArguments([RankedFiles.json(ids)] + filterArgs)))
    }

    /// The answer's order. Words alone: by the words' key. Meaning alone: by similarity.
    /// Both: reciprocal rank fusion; with `wordsFirst` (a single word or a query with
    /// operators) the files holding the words come first and meaning reorders them, so
    /// `notes search whale` still lists the files that say "whale" before the rest.
    /// A plain-words query's files whose title holds every word typed (`titled`) come first
    /// in a fused answer too: the meaning of a title like "Reading list" is far from its list.
    /// `embedded`: the files that have vectors. A file found by words that has none yet (a
    /// note written a moment ago) cannot be judged by meaning, so its rank by words stands
    /// in for its rank by meaning rather than leaving it below every file both sides found.
    ///
    /// `best`: only the first `best` entries are wanted (a page by relevance), and any tied
    /// in key with the last of them (ties are broken by path, which needs the rows); the
    /// rest are counted, not ordered. Nil: every entry, in order.
    static func fused(
        _ ranked: RankedFiles, _ nearest: [Int64: (rank: Int, passage: PassageMatch)],
        mode: SearchMode, wordsFirst: Bool,
        titled: Set<Int64> = [], embedded: Set<Int64>? = nil, paraphrase: Float? = nil,
        best: Int? = nil
    ) -> (entries: [FusedEntry], total: Int) {
        // A passage at least this near the query says what it asks (the model's calibration).
        let paraphrase = paraphrase ?? .infinity
        // Ordered as plain values (a file's index in `ranked`, not its sections): thousands
        // of files match a common word, and sorting entries that hold arrays copies them.
        struct Slot {
            let key: Double
            let file: Int64
            let relevance: Double
            let words: Int
            let meaning: PassageMatch?
        }
        let files = ranked.files
        var slots: [Slot] = []
        if nearest.isEmpty {
            slots = files.indices.map {
                Slot(
                    key: files[$0].score, file: files[$0].id, relevance: -files[$0].score,
                    words: $0, meaning: nil)
            }
        } else if mode == .semantic {
            slots = nearest.values.map {
                Slot(
                    key: -Double($0.passage.score), file: $0.passage.file,
                    relevance: Double(max(0, $0.passage.score)), words: -1, meaning: $0.passage)
            }
        } else {
            var byScore = files.indices.map {
                Ranked(score: files[$0].score, id: files[$0].id, at: $0)
            }
            byScore.sort()
            let byWords = byScore.map(\.at)
            let weight = wordsFirst ? 1 : semanticWeight
            slots.reserveCapacity(byWords.count + nearest.count)
            for (rank, index) in byWords.enumerated() {
                let id = files[index].id
                let meaning = nearest[id]
                var fused = 1 / (fusionK + Double(rank + 1))
                if let meaning {
                    fused += weight / (fusionK + Double(meaning.rank + 1))
                } else if let embedded, !embedded.contains(id) {
                    fused += weight / (fusionK + Double(rank + 1))
                }
                let first =
                    wordsFirst || titled.contains(id)
                    || (meaning?.passage.similarity ?? 0) >= paraphrase
                slots.append(
                    Slot(
                        key: -fused - (first ? 1 : 0), file: id, relevance: fused, words: index,
                        meaning: meaning?.passage))
            }
            for (file, meaning) in nearest where !ranked.contains(file) {
                let fused = weight / (fusionK + Double(meaning.rank + 1))
                let first = !wordsFirst && meaning.passage.similarity >= paraphrase
                slots.append(
                    Slot(
                        key: -fused - (first ? 1 : 0), file: file, relevance: fused, words: -1,
                        meaning: meaning.passage))
            }
        }
        let before = { (a: Slot, b: Slot) in (a.key, a.file) < (b.key, b.file) }
        let total = slots.count
        // The short list moves up to `best` entries per insertion: for a long page, sort.
        if let best, best > 0, best <= 64, slots.count > best {
            slots = Self.first(best, of: slots, by: before, tied: { $0.key == $1.key })
        } else {
            slots.sort(by: before)
        }
        let entries = slots.map {
            FusedEntry(
                file: $0.file, key: $0.key, relevance: $0.relevance,
                words: $0.words >= 0 ? files[$0.words] : nil, meaning: $0.meaning)
        }
        return (entries, total)
    }

    /// A file's words score, for ordering files by it (lower first, then by id).
    private struct Ranked: Comparable {
        let score: Double
        let id: Int64
        let at: Int
        static func < (a: Ranked, b: Ranked) -> Bool { (a.score, a.id) < (b.score, b.id) }
    }

    /// The first `count` of `items` in the order `before` (``ShortList``), followed by the
    /// others `tied` with the last of them, in order.
    static func first<T>(
        _ count: Int, of items: [T], by before: (T, T) -> Bool, tied: (T, T) -> Bool
    ) -> [T] {
        let kept = ShortList.first(count, of: items, by: before)
        guard let last = kept.last else { return kept }
        var ties = items.filter { tied($0, last) && before(last, $0) }
        ties.sort(by: before)
        return kept + ties
    }

    /// A file found by meaning alone: the line of its best passage that holds most of the
    /// query's words (by their first five letters, so "voyages" finds "voyage"), else the
    /// passage's first line.
    static func passageSnippet(_ passage: PassageMatch, words: [String], _ db: Database) throws
        -> Snippet?
    {
        // A section that is a heading alone (a note opening with its subsections, whose
        // title passage matched) shows the first text of the sections under it instead.
        var id = passage.section
        var firstLine = passage.line
        var headingOnly: Snippet?
        while id >> IndexSchema.sectionBits == passage.file,
            id - passage.section < Self.sectionsTriedForText
        {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT substr(fts.body, 1, 200000) AS body, s.heading AS section, s.line AS line, s.aligned AS aligned
                        FROM fts JOIN sections s ON s.id = fts.rowid WHERE fts.rowid = ?
                        """, arguments: [id])
            else { break }
            let section: String = row["section"]
            if let snippet = Self.snippet(in: row, from: firstLine, words: words) {
                return snippet
            }
            headingOnly =
                headingOnly
                ?? Snippet(section: section, line: row["line"], text: section, spans: [])
            id += 1
            firstLine = 0
        }
        return headingOnly
    }

    /// How many sections, from a passage's own, are read for a line of text to show.
    static let sectionsTriedForText: Int64 = 4

    /// Whether `line` is a Markdown table's delimiter row (`|---|:--:|`).
    static func isDelimiterRow(_ line: Substring) -> Bool {
        let cells = line.trimmingCharacters(in: .whitespaces)
        return cells.contains("-") && cells.contains("|")
            && cells.allSatisfy { "|-: \t".contains($0) }
    }

    /// The line of a section's text (`row`: its body, heading, line and alignment) that best
    /// shows a passage starting at `first`: the one holding most of `words`, or the first
    /// line with text; nil when the section has no text from there.
    private static func snippet(in row: Row, from first: Int, words: [String]) -> Snippet? {
        let body = FTSText.display(row["body"] as String)
        let lines = body.lines()
        var n = min(first, lines.count)
        while n < lines.count && lines[n].allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) {
            n += 1
        }
        guard n < lines.count else { return nil }
        // A table's header and delimiter rows say nothing of a row: its first row instead.
        while n + 1 < lines.count
            && (Self.isDelimiterRow(lines[n + 1]) || Self.isDelimiterRow(lines[n]))
        {
            n += 1
        }
        // The passage's lines (about as many as its words allow).
        let stems = words.filter { !StopWords.contains($0) }.map {
            String($0.lowercased().prefix(5))
        }.filter { $0.count >= 3 }
        if !stems.isEmpty {
            var best = (count: 0, line: n)
            var wordsSeen = 0
            var i = n
            while i < lines.count && wordsSeen < TextChunks.wordsPerChunk {
                let lower = lines[i].lowercased()
                let count = stems.filter { lower.contains($0) }.count
                if count > best.count { best = (count, i) }
                wordsSeen += lines[i].split(separator: " ").count
                i += 1
            }
            n = best.line
        }
        let (text, _) = SnippetBuilder.clean(lines[n].unicodeScalars[...])
        let (shown, _) = SnippetBuilder.window(text, [])
        let aligned: Bool = row["aligned"]
        return Snippet(
            section: row["section"], line: aligned ? (row["line"] as Int) + n : row["line"],
            text: shown, spans: [])
    }
}
