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
    /// The words' share of a plain-words query's fused score; meaning has the rest. A
    /// question's words match many files by chance (a long book holds nearly every word),
    /// its meaning fewer.
    static let wordsShare: Double = {
        if let text = ProcessInfo.processInfo.environment["NOTES_FUSION_WORDS"],
            let value = Double(text), value.isFinite, (0...1).contains(value)
        {
            return value
        }
        return 0.25
    }()
    /// The similarity a passage's score is scaled from for fusion: at or below it the passage
    /// counts nothing (all-MiniLM-L6-v2 puts unrelated texts near 0–0.2).
    static let unrelatedSimilarity: Double = {
        if let text = ProcessInfo.processInfo.environment["NOTES_FUSION_UNRELATED"],
            let value = Double(text), value.isFinite, value < 1
        {
            return value
        }
        return 0.05
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

    /// The passages whose section still exists. A section edited since its passages were made
    /// keeps them until the next pass makes them again (D273): what a note said a moment ago
    /// is near what it says now, and without them a note found only by meaning vanished from
    /// every search after any edit.
    static func current(_ matches: [VectorTable.Match], _ table: VectorTable, _ db: Database) throws
        -> [PassageMatch]
    {
        guard !matches.isEmpty else { return [] }
        let ids = matches.map { table.sectionIDs[$0.row] }
        let existing = Set(
            try Int64.fetchAll(
                db,
                sql: "SELECT id FROM sections WHERE id IN (SELECT value FROM json_each(?))",
                arguments: [RankedFiles.json(ids)]))
        return matches.compactMap { match -> PassageMatch? in
            let section = table.sectionIDs[match.row]
            guard existing.contains(section) else { return nil }
            return PassageMatch(
                file: section >> IndexSchema.sectionBits, section: section,
                line: Int(table.lines[match.row]), similarity: match.similarity,
                score: match.score)
        }
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

    /// The answer's order. Words alone: by the words' key. Meaning alone: by the passage's
    /// score. Both: a weighted sum of the two sides' scores, each scaled to 0...1 within the
    /// answer (``wordsShare``, ``unrelatedSimilarity``), so how much nearer a file is counts,
    /// not only its place: a note far nearer the question than any other is not outvoted by
    /// files that rank a little better on both sides. With `wordsFirst` (a single word or a
    /// query with operators) the sides count alike and the files holding the words come
    /// first, so `notes search whale` still lists the files that say "whale" before the rest.
    /// A plain-words query's files whose title holds every word typed (`titled`) come first
    /// in a fused answer too: the meaning of a title like "Reading list" is far from its list.
    /// `embedded`: the files that have vectors. A file found by words that has none yet (a
    /// note written a moment ago) cannot be judged by meaning, so its words' score stands in
    /// for its meaning's rather than leaving it below every file both sides found.
    ///
    /// `best`: only the first `best` entries are wanted (a page by relevance), and any tied
    /// in key with the last of them (ties are broken by path, which needs the rows); the
    /// rest are counted, not ordered. Nil: every entry, in order.
    static func fused(
        _ ranked: RankedFiles, _ nearest: [Int64: PassageMatch],
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
                    key: -Double($0.score), file: $0.file,
                    relevance: Double(max(0, $0.score)), words: -1, meaning: $0)
            }
        } else {
            // The words' key against the best (keys are negative, better lower); a passage's
            // score from `unrelatedSimilarity` (0) to the best passage's (1), squared: the
            // nearest passages sit close together, and a small lead there means more than
            // the same gap among passages about something else.
            let bestWords = files.lazy.map(\.score).min() ?? 0
            let topMeaning = nearest.values.lazy.map { Double($0.score) }.max() ?? 0
            let unrelated = Self.unrelatedSimilarity
            // When nothing is near (the best below the meaning-only floor), the scale stops
            // at the floor: differences among passages about something else decide little.
            let span = max(1e-6, max(topMeaning, Double(Self.meaningOnlyFloor)) - unrelated)
            let words = { (key: Double) in bestWords < 0 ? max(0, key / bestWords) : 0 }
            let meaning = { (passage: PassageMatch) in
                let scaled = min(1, max(0, (Double(passage.score) - unrelated) / span))
                return scaled * scaled
            }
            let share = wordsFirst ? 0.5 : Self.wordsShare
            slots.reserveCapacity(files.count + nearest.count)
            for index in files.indices {
                let id = files[index].id
                let found = nearest[id]
                let byWords = words(files[index].score)
                var fused = share * byWords
                if let found {
                    fused += (1 - share) * meaning(found)
                } else if let embedded, !embedded.contains(id) {
                    fused += (1 - share) * byWords
                }
                let first =
                    wordsFirst || titled.contains(id)
                    || (found?.similarity ?? 0) >= paraphrase
                slots.append(
                    Slot(
                        key: -fused - (first ? 1 : 0), file: id, relevance: fused, words: index,
                        meaning: found))
            }
            for (file, found) in nearest where !ranked.contains(file) {
                let fused = (1 - share) * meaning(found)
                let first = !wordsFirst && found.similarity >= paraphrase
                slots.append(
                    Slot(
                        key: -fused - (first ? 1 : 0), file: file, relevance: fused, words: -1,
                        meaning: found))
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

    /// The line of a section's text (`row`: its body, heading, line and alignment) that best
    /// shows a passage starting at `first`: the one holding most of `words`, or the first
    /// line with text; nil when the section has no text from there.
    private static func snippet(in row: Row, from first: Int, words: [String]) -> Snippet? {
        let body = FTSText.display(row["body"] as String)
        let lines = body.lines()
        guard var n = SnippetBuilder.firstShownLine(lines, from: first) else { return nil }
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
