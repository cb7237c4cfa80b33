import Foundation
import GRDB
import NotesCore

extension NoteIndex {
    /// Runs a search (SPEC §4.2): one hit per file, ranked by weighted BM25 of its best
    /// section (or in the requested order), with up to 3 snippets from its best sections.
    /// A query with no full-text terms lists matching documents, most recently modified first.
    public func search(_ query: SearchQuery) throws(NotesError) -> SearchResults {
        try recoveringFromDamage { () throws(NotesError) -> SearchResults in try searchOnce(query) }
    }

    func searchOnce(_ query: SearchQuery) throws(NotesError) -> SearchResults {
        let match = FTSExpression.match(for: query.terms)
        let limit = max(1, query.withSnippets ? min(query.limit, 10_000) : query.limit)  // paths alone: every match may be asked for
        let policy = workspace.config.policy
        do {
            return try pool.read { db in
                // Files the agent may not see: usually none, read from their flags; the
                // policy is asked per file only when the flags were set under another.
                let hidden = query.filters.hideProtected ? try HiddenFiles.ids(db, policy: policy) : nil
                let hiding: Hiding
                if !query.filters.hideProtected {
                    hiding = .nothing
                } else if hidden == nil {
                    hiding = .askingThePolicy
                } else {
                    hiding = match == nil ? .byFlag : .inSwift  // ranked results drop `hidden` below
                }
                var (filterSQL, filterArgs) = Self.filterClause(query.filters, hiding: hiding)
                if let exclusion = FTSExpression.exclusion(for: query.terms) {
                    filterSQL += " AND f.id NOT IN (SELECT rowid >> \(IndexSchema.sectionBits) FROM fts WHERE fts MATCH ?)"
                    filterArgs.append(exclusion)
                }
                guard let match else {
                    // Nothing to rank by: relevance lists the most recently modified first.
                    let sql = "SELECT f.*, COUNT(*) OVER () AS total FROM files f WHERE f.indexed = 1 AND \(filterSQL)"
                        + " ORDER BY \(Self.orderClause(query.sort)) LIMIT ?"
                    let rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(filterArgs + [limit]))
                    let hits = rows.map { Self.hit($0, score: 0, snippets: []) }
                    return SearchResults(query: query.text, total: rows.first?["total"] ?? 0, hits: hits)
                }
                var ranked = try RankedFiles(match: match, db)
                if let hidden, !hidden.isEmpty { ranked.drop(hidden) }
                if filterSQL != "1" {
                    let allowed = try Set(Int64.fetchAll(db, sql: """
                        SELECT f.id FROM files f WHERE f.id IN (SELECT value FROM json_each(?)) AND \(filterSQL)
                        """, arguments: StatementArguments([ranked.idsJSON] + filterArgs)))
                    ranked.keep(allowed)
                }
                var page: [(row: Row, file: RankedFiles.File)] = []
                if query.sort == .relevance {
                    // Rows only for the best files (and any tied with the last of them), then
                    // ordered by score and path like the rest of the results.
                    let best = ranked.best(limit)
                    let rows = try Row.fetchAll(db, sql: "SELECT f.* FROM files f WHERE f.id IN (SELECT value FROM json_each(?))",
                                                arguments: [RankedFiles.json(best.map(\.id))])
                    let byID = Dictionary(uniqueKeysWithValues: best.map { ($0.id, $0) })
                    page = rows.compactMap { row in byID[row["id"]].map { (row, $0) } }
                    page.sort { ($0.file.score, $0.row["path"] as String) < ($1.file.score, $1.row["path"] as String) }
                    page = Array(page.prefix(limit))
                } else {
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT f.* FROM files f WHERE f.id IN (SELECT value FROM json_each(?))
                        ORDER BY \(Self.orderClause(query.sort)) LIMIT ?
                        """, arguments: [ranked.idsJSON, limit])
                    page = rows.compactMap { row in ranked.file(row["id"]).map { (row, $0) } }
                }
                var snippetsBySection: [Int64: Snippet] = [:]
                if query.withSnippets {
                    snippetsBySection = try Self.snippets(sections: page.flatMap { $0.file.sections.map(\.id) }, match: match, db)
                }
                let hits = page.map { row, file in
                    Self.hit(row, score: file.score, snippets: file.sections.compactMap { snippetsBySection[$0.id] })
                }
                return SearchResults(query: query.text, total: ranked.count, hits: hits)
            }
        } catch {
            throw Self.wrap(error)
        }
    }

    static func hit(_ row: Row, score: Double, snippets: [Snippet]) -> SearchHit {
        SearchHit(
            path: row["path"], title: row["title"],
            kind: DocumentKind(rawValue: row["kind"]) ?? .note,
            score: (-score * 1000).rounded() / 1000, version: String((row["digest"] as String).prefix(16)),
            provenance: provenance(row), size: row["size"], snippets: snippets)
    }

    /// Whether any indexed document has the front-matter key `key` (for `key:value` terms).
    public func hasMetadataKey(_ key: String) -> Bool {
        (try? pool.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM metadata WHERE key = ?)", arguments: [key]) }) == true
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
    /// time), 2–3.5 ms for a page of 30 sections at 100k notes. One pass over the matches,
    /// keeping the listed rows, is 0.2–0.6 ms (docs/performance.md, sixth pass).
    static func snippets(sections: [Int64], match: String, _ db: Database) throws -> [Int64: Snippet] {
        guard !sections.isEmpty else { return [:] }
        let placeholders = Array(repeating: "?", count: sections.count).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: """
            SELECT fts.rowid AS id, highlight(fts, 3, char(1), char(2)) AS body, highlight(fts, 1, char(1), char(2)) AS heading,
                   s.heading AS section, s.line AS line, s.aligned AS aligned
            FROM fts JOIN sections s ON s.id = fts.rowid
            WHERE fts MATCH ? AND +fts.rowid IN (\(placeholders))
            """, arguments: StatementArguments([match] + sections))
        var result: [Int64: Snippet] = [:]
        for row in rows {
            result[row["id"]] = SnippetBuilder.snippet(
                section: row["section"], sectionLine: row["line"], aligned: row["aligned"],
                highlightedBody: row["body"], highlightedHeading: row["heading"])
        }
        return result
    }

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
    static func filterClause(_ filters: SearchFilters, hiding: Hiding) -> (String, [(any DatabaseValueConvertible)?]) {
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
            clauses.append("f.id IN (SELECT file_id FROM tags WHERE tag = ? OR (tag >= ? AND tag < ?))")
            args += [tag, tag + "/", tag + "0"]  // "0" is the character after "/"
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
            clauses.append("f.kind IN (" + filters.kinds.map { _ in "?" }.joined(separator: ", ") + ")")
            args += filters.kinds.map(\.rawValue)
        }
        for (column, dates) in [("f.created_ts", filters.created), ("f.modified_ts", filters.modified)] {
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
