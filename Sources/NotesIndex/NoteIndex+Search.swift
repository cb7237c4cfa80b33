import Foundation
import GRDB
import NotesCore

extension NoteIndex {
    /// Runs a search (docs/spec.md §4.2): one hit per file, ranked by weighted BM25 of its best
    /// section (or in the requested order), with up to 3 snippets from its best sections.
    /// A query with no full-text terms lists matching documents, most recently modified first.
    public func search(_ query: SearchQuery) throws(NotesError) -> SearchResults {
        try recoveringFromDamage { () throws(NotesError) -> SearchResults in try searchOnce(query) }
    }

    /// The first folder the query is limited to (`in:`, `--in`, a tool's `path`) that does
    /// not exist: a mistake to report, not "no hits".
    public func missingFolder(_ query: SearchQuery) -> String? {
        query.filters.folders.first {
            !$0.isEmpty && !FileSystem.exists(workspace.absolutePath($0))
        }
    }

    /// Whether search looks inside the file at the workspace-relative `path`: the index holds
    /// its text (its format is read, it is within `index_max_bytes`, no ignore rule leaves it
    /// out). False for a file the index has not seen yet.
    /// Never waits: false while the index is not open yet or another process builds it
    /// (for a hint such as `read_file`'s `next`, which must not wait on a build).
    public func searchesInside(_ path: String) -> Bool {
        guard isPoolOpen, !isWaitingForABuild else { return false }
        return holdsText(of: path)
    }

    /// Whether the index holds the text of the file at `path`, opening the index if need be.
    private func holdsText(of path: String) -> Bool {
        (try? pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT indexed FROM files WHERE path = ?", arguments: [path])
        }) ?? nil ?? false
    }

    /// The first path the query is limited to (`in:`, or `path:` without wildcards) that
    /// names a file search does not look inside (``searchesInside(_:)``): such a search could
    /// only answer "no hits", which reads as "the file does not say it".
    public func unsearchedFile(_ query: SearchQuery) -> String? {
        let exact = query.filters.pathGlobs.filter { !$0.contains(where: { "*?[".contains($0) }) }
            .map { (try? WorkspacePath.normalize($0, from: "")) ?? $0 }
        return (query.filters.folders + exact).first { path in
            let absolute = workspace.absolutePath(path)
            return !path.isEmpty && FileSystem.exists(absolute)
                && !FileSystem.isDirectory(absolute) && !holdsText(of: path)
        }
    }

    /// Why a search limited to `path` (``unsearchedFile(_:)``) cannot look inside it; `hint`
    /// names the way to read it on the caller's side.
    public func unsearchedFileError(_ path: String, shown: String? = nil, hint: String)
        -> NotesError
    {
        NotesError(
            .invalidArgument,
            "search does not look inside \(shown ?? path): it indexes \(indexedFiles)", hint: hint)
    }

    /// Which files search looks inside, for a message.
    public var indexedFiles: String {
        let bytes = workspace.config.indexMaxBytes
        let limit = bytes >= 1 << 20 ? "\(bytes >> 20) MB" : "\(max(1, bytes >> 10)) KB"
        return "Markdown, .txt and Chats/*.json files up to \(limit) that no ignore rule leaves out"
    }

    func searchOnce(_ query: SearchQuery) throws(NotesError) -> SearchResults {
        if query.terms.isEmpty && !query.filters.selectsFiles
            && query.text.contains(where: { !$0.isWhitespace })
        {
            throw NotesError(
                .invalidArgument, "the query '\(query.text.prefix(80))' has no words to search for",
                hint: "search for a word, a \"phrase\" or a filter such as tag:T")
        }
        // A plain-words query matches sections holding any of its significant words and ranks
        // them by how many they hold; anything else keeps its exact meaning.
        let plainWords = query.isPlainWords ? query.significantTerms : nil
        let match = plainWords.map(FTSExpression.anyOf) ?? FTSExpression.match(for: query.terms)
        // paths alone: every match may be asked for
        let limit = max(1, query.withSnippets ? min(query.limit, 10_000) : query.limit)
        let policy = workspace.config.policy
        let meaning = try startMeaningSide(query, plainWords: plainWords, match: match)
        // The meaning side's thread may still run the model on any way out: a process that
        // exits next must not unload it under that thread.
        defer { _ = try? meaning.pending?.wait() }
        do {
            return try pool.read { db in
                let scope = try Self.scope(of: query, policy: policy, ranking: match != nil, db)
                guard let match else {
                    return try Self.mostRecent(query, in: scope, limit: limit, db)
                }
                var mode = meaning.mode
                let words = try Self.rankByWords(
                    query, match: match, plainWords: plainWords, mode: mode, in: scope, db)
                let nearest = try nearestByMeaning(meaning, query, words.ranked, in: scope, db)
                if nearest.modelDiffers { mode = .lexical }
                let order = Self.fused(
                    words.ranked, nearest.files, mode: mode,
                    wordsFirst: plainWords == nil, titled: words.titled,
                    embedded: nearest.embeddedFiles,
                    paraphrase: query.embedder?.paraphraseSimilarity,
                    best: query.sort == .relevance ? limit : nil)
                let page = try Self.page(
                    of: order.entries, sort: query.sort, limit: limit, db)
                let hits = try Self.hits(
                    page, query: query, match: match, byMeaning: nearest.searched, db)
                var results = SearchResults(query: query.text, total: order.total, hits: hits)
                if nearest.saturated && mode != .lexical { results.totalAtLeast = true }
                results.mode = mode
                if let plainWords, mode != .semantic {
                    Self.markMissingWords(
                        plainWords, page: page, answer: words.ranked, byMeaning: nearest.files,
                        in: &results)
                }
                results.semantic = meaning.coverage
                return results
            }
        } catch {
            throw wrap(error)
        }
    }

    /// Which sides of a search run, and the nearest passages being found meanwhile.
    struct MeaningSide {
        var mode = SearchMode.lexical
        var pending: PendingNearest?
        /// The stored vectors `pending` compares the query with.
        var table: VectorTable?
        var coverage: SemanticCoverage?
    }

    /// Decides whether meaning is searched too (a model at hand and vectors stored), and if
    /// so starts finding the nearest passages on another thread while the words are ranked.
    private func startMeaningSide(
        _ query: SearchQuery, plainWords: [QueryTerm]?, match: String?
    ) throws(NotesError) -> MeaningSide {
        var side = MeaningSide()
        // By default the meaning side answers questions and several words, even when only
        // one of them is significant ("what do I do for a living"); a single word or a query
        // with operators keeps its exact meaning (a word's vector alone finds near-anything
        // above the floor: `xyzzy`), unless a mode is asked for.
        guard query.mode != .lexical, query.mode != nil || plainWords != nil,
            match != nil || query.mode == .semantic, !query.semanticText.isEmpty
        else { return side }
        if let embedder = query.embedder {
            do {
                let stored = try storedVectors { table, model in
                    guard table.count > 0, let model else { return }
                    side.pending = PendingNearest(
                        embedder, text: query.semanticText, storedModel: model, in: table,
                        limit: Self.semanticDepth)
                    side.table = table
                    side.mode = query.mode ?? .hybrid
                }
                side.coverage = stored.coverage
                // Passages but no file with text to find (all since removed): words only.
                if stored.filesWithPassages == 0, let pending = side.pending {
                    _ = try? pending.wait()
                    side = MeaningSide(coverage: side.coverage)
                }
            } catch {
                // That thread may still run the model (as in searchOnce).
                _ = try? side.pending?.wait()
                throw error
            }
        }
        if query.mode == .semantic && side.pending == nil { throw Self.noMeaningSide(query) }
        return side
    }

    /// The files a search may answer with: the filters as SQL, and the files the agent may
    /// not see (nil when none are hidden by flag).
    struct SearchScope {
        var hidden: Set<Int64>?
        var filterSQL: String
        var filterArgs: [(any DatabaseValueConvertible)?]
    }

    /// The query's filters and exclusions as SQL, and the hidden files for an agent: usually
    /// none, read from their flags; the policy is asked per file only when the flags were set
    /// under another. `ranking`: the ranked results drop the hidden files in Swift.
    private static func scope(
        of query: SearchQuery, policy: PathPolicy, ranking: Bool, _ db: Database
    ) throws -> SearchScope {
        let hidden = query.filters.hideProtected ? try HiddenFiles.ids(db, policy: policy) : nil
        let hiding: Hiding
        if !query.filters.hideProtected {
            hiding = .nothing
        } else if hidden == nil {
            hiding = .askingThePolicy
        } else {
            hiding = ranking ? .inSwift : .byFlag
        }
        var (filterSQL, filterArgs) = Self.filterClause(query.filters, hiding: hiding)
        if let exclusion = FTSExpression.exclusion(for: query.terms) {
            filterSQL +=
                " AND f.id NOT IN (SELECT rowid >> \(IndexSchema.sectionBits) FROM fts WHERE fts MATCH ?)"
            filterArgs.append(exclusion)
        }
        return SearchScope(hidden: hidden, filterSQL: filterSQL, filterArgs: filterArgs)
    }

    /// A query with nothing to rank by: the files in scope, the most recently modified first
    /// (or in the order asked for).
    private static func mostRecent(
        _ query: SearchQuery, in scope: SearchScope, limit: Int, _ db: Database
    ) throws -> SearchResults {
        let sql =
            "SELECT f.*, COUNT(*) OVER () AS total FROM files f WHERE f.indexed = 1 AND \(scope.filterSQL)"
            + " ORDER BY \(Self.orderClause(query.sort)) LIMIT ?"
        let rows = try Row.fetchAll(
            db, sql: sql, arguments: StatementArguments(scope.filterArgs + [limit]))
        let hits = rows.map { Self.hit($0, score: nil, snippets: []) }
        return SearchResults(query: query.text, total: rows.first?["total"] ?? 0, hits: hits)
    }

    /// The words side: the files in scope ranked by their best sections, and the files whose
    /// title holds every word of a plain-words query (boosted).
    private static func rankByWords(
        _ query: SearchQuery, match: String, plainWords: [QueryTerm]?, mode: SearchMode,
        in scope: SearchScope, _ db: Database
    ) throws -> (ranked: RankedFiles, titled: Set<Int64>) {
        var ranked =
            mode == .semantic
            ? RankedFiles()
            : try RankedFiles(match: match, plainWords: plainWords?.count, db)
        var titled = Set<Int64>()
        if plainWords != nil && mode != .semantic {
            // Known-item search: a title holding every word typed, common ones too
            // ("kubectl get", "reading list"), names the note the query is after.
            let expression = query.terms.map { "title : " + FTSExpression.render($0) }
                .joined(separator: " AND ")
            titled = Set(
                try Int64.fetchAll(
                    db,
                    sql:
                        "SELECT DISTINCT rowid >> \(IndexSchema.sectionBits) FROM fts WHERE fts MATCH ?",
                    arguments: [expression]))
            ranked.boost(titled, by: Self.titleBoost)
        }
        if let hidden = scope.hidden, !hidden.isEmpty { ranked.drop(hidden) }
        if scope.filterSQL != "1" {
            ranked.keep(
                try Self.allowed(ranked.files.map(\.id), scope.filterSQL, scope.filterArgs, db))
        }
        // A query with operators: every AND group somewhere in the file (the expression
        // ranked matches a section holding any group). The words' rule: files found by
        // meaning alone are not held to it.
        if plainWords == nil, mode != .semantic,
            let required = FTSExpression.required(for: query.terms)
        {
            let holdsEvery = required.map { _ in
                "f.id IN (SELECT rowid >> \(IndexSchema.sectionBits) FROM fts WHERE fts MATCH ?)"
            }.joined(separator: " AND ")
            ranked.keep(try Self.allowed(ranked.files.map(\.id), holdsEvery, required, db))
        }
        return (ranked, titled)
    }

    /// What the meaning side found: the files whose passages are nearest the query's vector.
    struct MeaningMatches {
        var files: [Int64: PassageMatch] = [:]
        /// The files that have vectors (nil when meaning was not searched).
        var embeddedFiles: Set<Int64>?
        /// Whether meaning was searched (a query vector was made).
        var searched = false
        /// The installed model is not the one the passages were embedded with: words only.
        var modelDiffers = false
        /// Every file the meaning side ranked was close enough to list: more may be.
        var saturated = false
    }

    /// Waits for the nearest passages and keeps those of files in scope whose section still
    /// exists (``current(_:_:_:)``): those above the meaning-only floor, and any the words
    /// side found.
    private func nearestByMeaning(
        _ side: MeaningSide, _ query: SearchQuery, _ ranked: RankedFiles,
        in scope: SearchScope, _ db: Database
    ) throws -> MeaningMatches {
        var matches = MeaningMatches()
        guard let pending = side.pending, let table = side.table else { return matches }
        guard let nearest = try pending.wait() else {
            if query.mode == .semantic { throw Self.noMeaningSide(query) }
            matches.modelDiffers = true
            return matches
        }
        matches.searched = true
        // A file past the last one ranked can be as near as its score plus the largest
        // length penalty.
        matches.saturated =
            nearest.count == Self.semanticDepth
            && (nearest.last?.score ?? 0) + table.largestLengthPenalty >= Self.meaningOnlyFloor
        var current = try Self.current(nearest, table, db)
        matches.embeddedFiles = table.files
        if let hidden = scope.hidden, !hidden.isEmpty {
            current.removeAll { hidden.contains($0.file) }
        }
        if scope.filterSQL != "1" {
            let allowed = try Self.allowed(
                current.map(\.file), scope.filterSQL, scope.filterArgs, db)
            current.removeAll { !allowed.contains($0.file) }
        }
        let floor = Self.meaningOnlyFloor
        for passage in current
        where passage.similarity >= floor || ranked.contains(passage.file) {
            matches.files[passage.file] = passage
        }
        return matches
    }

    /// The page of the fused order to answer with, each entry with its `files` row: by
    /// relevance, the best `limit` with ties broken by path; else in the order asked for.
    private static func page(
        of order: [FusedEntry], sort: SearchSort, limit: Int, _ db: Database
    ) throws -> [(row: Row, entry: FusedEntry)] {
        guard sort == .relevance else {
            let byID = Dictionary(uniqueKeysWithValues: order.map { ($0.file, $0) })
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT f.* FROM files f WHERE f.id IN (SELECT value FROM json_each(?))
                    ORDER BY \(Self.orderClause(sort)) LIMIT ?
                    """, arguments: [RankedFiles.json(order.map(\.file)), limit])
            return rows.compactMap { row in byID[row["id"]].map { (row, $0) } }
        }
        // The best files and any tied with the last of them: ties are broken by
        // path, which needs the rows.
        var end = min(limit, order.count)
        while end < order.count && order[end].key == order[end - 1].key { end += 1 }
        let best = Array(order[..<end])
        let rows = try Row.fetchAll(
            db,
            sql: "SELECT f.* FROM files f WHERE f.id IN (SELECT value FROM json_each(?))",
            arguments: [RankedFiles.json(best.map(\.file))])
        let byID = Dictionary(uniqueKeysWithValues: best.map { ($0.file, $0) })
        var page: [(row: Row, entry: FusedEntry)] = rows.compactMap { row in
            byID[row["id"]].map { (row, $0) }
        }
        page.sort {
            ($0.entry.key, $0.row["path"] as String) < ($1.entry.key, $1.row["path"] as String)
        }
        return Array(page.prefix(limit))
    }

    /// The hits of `page`: scores relative to its best (1 = as good as the best), snippets
    /// from the matching sections or the nearest passage, and which side matched each when
    /// meaning was searched.
    private static func hits(
        _ page: [(row: Row, entry: FusedEntry)], query: SearchQuery, match: String,
        byMeaning: Bool, _ db: Database
    ) throws -> [SearchHit] {
        var snippetsBySection: [Int64: Snippet] = [:]
        if query.withSnippets {
            snippetsBySection = try Self.snippets(
                sections: page.flatMap { $0.entry.words?.shownSections.map(\.id) ?? [] },
                match: match, db)
        }
        // Relative to the best; in relevance order never above the hit before (a file put
        // first by its title or a paraphrase may have the lower fused score), so the scores
        // read in the order the hits are listed. Never 0 for a hit: a far weaker one still
        // matched.
        var scores: [Double] = []
        if query.sort == .relevance, let top = page.first?.entry.relevance, top > 0 {
            for (_, entry) in page {
                scores.append(min(scores.last ?? 1, max(0.001, entry.relevance / top)))
            }
        } else {
            let best = page.map(\.entry.relevance).max() ?? 0
            scores = page.map { best > 0 ? max(0.001, $0.entry.relevance / best) : 1 }
        }
        return try zip(page, scores).map { item, score in
            let (row, entry) = item
            var snippets: [Snippet] = []
            if query.withSnippets {
                if let file = entry.words {
                    snippets = file.shownSections.compactMap { snippetsBySection[$0.id] }
                } else if let meaning = entry.meaning {
                    snippets =
                        try Self.passageSnippet(
                            meaning, words: query.terms.filter { !$0.negated }.map(\.text), db
                        ).map { [$0] } ?? []
                }
            }
            var hit = Self.hit(row, score: score, snippets: snippets)
            if byMeaning {
                hit.matchedBy =
                    entry.words == nil ? .meaning : entry.meaning == nil ? .words : .both
            }
            return hit
        }
    }

    /// For a plain-words query: the words each hit lacks, whether every file the answer
    /// counts (`answer` by words, `byMeaning`; not only the page) holds all of them, and the
    /// words searched for.
    private static func markMissingWords(
        _ plainWords: [QueryTerm], page: [(row: Row, entry: FusedEntry)], answer: RankedFiles,
        byMeaning: [Int64: PassageMatch], in results: inout SearchResults
    ) {
        let all: Int64 = (1 << Int64(plainWords.count)) - 1
        for (i, (_, entry)) in page.enumerated() {
            guard let file = entry.words, file.matched & all != all else { continue }
            results.hits[i].missing = plainWords.indices.filter {
                file.matched & (1 << Int64($0)) == 0
            }.map { plainWords[$0].shownText }
        }
        if !results.hits.isEmpty {
            let everyFileHoldsAll =
                answer.files.allSatisfy { $0.matched & all == all }
                && byMeaning.keys.allSatisfy { answer.contains($0) }
            results.matching = everyFileHoldsAll ? .allWords : .mostWords
        }
        results.words = plainWords.map(\.shownText)
    }

    static func hit(_ row: Row, score: Double?, snippets: [Snippet]) -> SearchHit {
        SearchHit(
            path: row["path"], title: row["title"],
            kind: DocumentKind(rawValue: row["kind"]) ?? .note,
            score: score.map { ($0 * 1000).rounded() / 1000 },
            version: String((row["digest"] as String).prefix(16)),
            provenance: provenance(row), size: row["size"], snippets: snippets)
    }

    /// Whether any indexed document has the front-matter key `key` (for `key:value` terms).
    public func hasMetadataKey(_ key: String) -> Bool {
        (try? pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM metadata WHERE key = ?)", arguments: [key])
        }) == true
    }

    static func provenance(_ row: Row) -> Provenance {
        Provenance(
            createdBy: Actor(rawValue: row["created_by"]), createdAt: row["created_at"],
            lastModifiedBy: Actor(rawValue: row["modified_by"]), lastModifiedAt: row["modified_at"])
    }

    /// Snippets of `sections` (FTS rowids) for `match`: one statement for all hits of a page.
    /// No ranking function here: `bm25()` recomputes its statistics over every match for
    /// each looked-up row (the sections' scores come from ``RankedFiles``).
    ///
    /// The rowid test is written `+fts.rowid IN (…)` so that SQLite does not hand it to FTS5:
    /// FTS5 would then run the whole MATCH once per listed rowid (parsing the expression and
    /// opening every term's doclist again; a prefix term merges all its terms' lists each
    /// time). One pass over the matches, keeping the listed rows, costs a fraction of that
    /// (docs/performance-history.md).
    static func snippets(sections: [Int64], match: String, _ db: Database) throws -> [Int64:
        Snippet]
    {
        guard !sections.isEmpty else { return [:] }
        let placeholders = Array(repeating: "?", count: sections.count).joined(separator: ", ")
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT fts.rowid AS id, notes_snippet(fts, 3, \(SnippetBuilder.contextBefore), \(SnippetBuilder.contextAfter)) AS body,
                       highlight(fts, 1, char(1), char(2)) AS heading, substr(fts.body, 1, 2000) AS opening,
                       s.heading AS section, s.line AS line, s.aligned AS aligned
                FROM fts JOIN sections s ON s.id = fts.rowid
                WHERE fts MATCH ? AND +fts.rowid IN (\(placeholders))
                """, arguments: StatementArguments([match] + sections))
        var result: [Int64: Snippet] = [:]
        for row in rows {
            result[row["id"]] = SnippetBuilder.snippet(
                section: row["section"], sectionLine: row["line"], aligned: row["aligned"],
                markedLine: row["body"], highlightedHeading: row["heading"],
                opening: row["opening"],
                firstSection: (row["id"] as Int64) & (IndexSchema.rowsPerFile - 1) == 0)
        }
        return result
    }

    /// How much a plain-words query favours a file whose title holds every word typed.
    static let titleBoost = 4.0

    /// How a search leaves out the files the agent may not see.
    enum Hiding {
        /// It does not (a person's search).
        case nothing
        /// In SQL, by `files.hidden` (``HiddenFiles``).
        case byFlag
        /// In SQL, asking the policy about each file (the flags were set under another policy).
        case askingThePolicy
        /// Not in SQL: the caller drops the hidden files it read (ranked searches).
        case inSwift
    }

    /// SQL for the filters, on the `files` table aliased `f`.
    static func filterClause(_ filters: SearchFilters, hiding: Hiding) -> (
        String, [(any DatabaseValueConvertible)?]
    ) {
        var clauses: [String] = ["1"]
        var args: [(any DatabaseValueConvertible)?] = []
        if !filters.folders.isEmpty {
            var any: [String] = []
            for folder in filters.folders where !folder.isEmpty {
                any.append("(f.path = ? OR substr(f.path, 1, ?) = ?)")
                args += [folder, folder.utf8.count + 1, folder + "/"]
            }
            if !any.isEmpty { clauses.append("(" + any.joined(separator: " OR ") + ")") }
        }
        for glob in filters.pathGlobs {
            clauses.append("notes_glob(?, f.path)")
            args.append(glob)
        }
        switch hiding {
        case .nothing, .inSwift: break
        case .byFlag: clauses.append("NOT f.hidden")
        case .askingThePolicy: clauses.append("NOT notes_protected(f.path)")
        }
        for tag in filters.tags {
            clauses.append(
                "f.id IN (SELECT file_id FROM tags WHERE tag = ? OR (tag >= ? AND tag < ?))")
            // The tag and the tags nested under it: `role/…` and Dendron's `role.…` ("." and
            // "/" are adjacent, and "0" is the character after "/").
            args += [tag, tag + ".", tag + "0"]
        }
        if let by = filters.createdBy {
            clauses.append("f.created_by = ?")
            args.append(by.rawValue)
        }
        if let by = filters.editedBy {
            clauses.append("f.modified_by = ?")
            args.append(by.rawValue)
        }
        if !filters.kinds.isEmpty {
            clauses.append(
                "f.kind IN (" + filters.kinds.map { _ in "?" }.joined(separator: ", ") + ")")
            args += filters.kinds.map(\.rawValue)
        }
        for (column, dates) in [
            ("f.created_ts", filters.created), ("f.modified_ts", filters.modified),
        ] {
            for date in dates {
                clauses.append("\(column) \(date.comparison.rawValue) ?")
                args.append(date.instant)
            }
        }
        for meta in filters.metadata {
            clauses.append("f.id IN (SELECT file_id FROM metadata WHERE key = ? AND value = ?)")
            args += [meta.key, meta.value]
        }
        return (clauses.joined(separator: " AND "), args)
    }

    /// ORDER BY over `files` (ranked results are ordered by ``RankedFiles``; without
    /// full-text terms, relevance means most recently modified first).
    static func orderClause(_ sort: SearchSort) -> String {
        switch sort {
        case .relevance: return "f.modified_ts DESC, f.path"
        case .modified: return "f.modified_ts DESC, f.path"
        case .created: return "f.created_ts DESC, f.path"
        case .path: return "f.path"
        case .title: return "f.title COLLATE NOCASE, f.path"
        }
    }
}
