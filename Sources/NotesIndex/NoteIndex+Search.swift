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
        var (filterSQL, filterArgs) = Self.filterClause(query.filters)
        if let exclusion = FTSExpression.exclusion(for: query.terms) {
            filterSQL += " AND f.id NOT IN (SELECT rowid >> \(IndexSchema.sectionBits) FROM fts WHERE fts MATCH ?)"
            filterArgs.append(exclusion)
        }
        let limit = max(1, min(query.limit, 10_000))
        do {
            return try pool.read { db in
                var rows: [Row]
                if let match {
                    // Per file: its best section's score and its 3 best sections (for snippets).
                    let sql = """
                        WITH r AS MATERIALIZED (SELECT rowid AS sid, rowid >> \(IndexSchema.sectionBits) AS file_id, \(IndexSchema.bm25) AS score
                                                FROM fts WHERE fts MATCH ?),
                             k AS (SELECT sid, file_id, score, ROW_NUMBER() OVER (PARTITION BY file_id ORDER BY score, sid) AS n FROM r),
                             m AS (SELECT file_id, MIN(score) AS score, group_concat(CASE WHEN n <= 3 THEN sid END) AS best
                                   FROM k GROUP BY file_id)
                        SELECT f.*, m.score AS score, m.best AS best, COUNT(*) OVER () AS total
                        FROM m JOIN files f ON f.id = m.file_id
                        WHERE \(filterSQL)
                        ORDER BY \(Self.orderClause(query.sort, ranked: true)) LIMIT ?
                        """
                    rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments([match] + filterArgs + [limit]))
                } else {
                    var sql = "SELECT f.*, 0.0 AS score, COUNT(*) OVER () AS total FROM files f WHERE f.indexed = 1 AND \(filterSQL)"
                    var args: [(any DatabaseValueConvertible)?] = filterArgs
                    let sort = query.sort == .relevance ? SearchSort.modified : query.sort
                    sql += " ORDER BY \(Self.orderClause(sort, ranked: false)) LIMIT ?"
                    args.append(limit)
                    rows = try Row.fetchAll(db, sql: sql, arguments: StatementArguments(args))
                }
                let total: Int = rows.first?["total"] ?? 0
                var snippetsBySection: [Int64: (snippet: Snippet, score: Double)] = [:]
                if let match, query.withSnippets {
                    let sections = rows.flatMap { row -> [Int64] in
                        ((row["best"] as String?) ?? "").split(separator: ",").compactMap { Int64($0) }
                    }
                    snippetsBySection = try Self.snippets(sections: sections, match: match, db)
                }
                var hits: [SearchHit] = []
                hits.reserveCapacity(rows.count)
                for row in rows {
                    let best = ((row["best"] as String?) ?? "").split(separator: ",").compactMap { Int64($0) }
                    let snippets = best.compactMap { snippetsBySection[$0] }.sorted { $0.score < $1.score }.map(\.snippet)
                    let score: Double = row["score"]
                    hits.append(SearchHit(
                        path: row["path"], title: row["title"],
                        kind: DocumentKind(rawValue: row["kind"]) ?? .note,
                        score: (-score * 1000).rounded() / 1000, version: String((row["digest"] as String).prefix(16)),
                        provenance: Self.provenance(row), size: row["size"], snippets: snippets))
                }
                return SearchResults(query: query.text, total: total, hits: hits)
            }
        } catch {
            throw Self.wrap(error)
        }
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

    /// Snippets of `sections` (FTS rowids) for `match`, with each section's score for
    /// ordering: one statement for all hits of a page.
    static func snippets(sections: [Int64], match: String, _ db: Database) throws -> [Int64: (snippet: Snippet, score: Double)] {
        guard !sections.isEmpty else { return [:] }
        let placeholders = Array(repeating: "?", count: sections.count).joined(separator: ", ")
        let rows = try Row.fetchAll(db, sql: """
            SELECT fts.rowid AS id, highlight(fts, 3, char(1), char(2)) AS body, highlight(fts, 1, char(1), char(2)) AS heading,
                   \(IndexSchema.bm25) AS score, s.heading AS section, s.line AS line, s.aligned AS aligned
            FROM fts JOIN sections s ON s.id = fts.rowid
            WHERE fts MATCH ? AND fts.rowid IN (\(placeholders))
            """, arguments: StatementArguments([match] + sections))
        var result: [Int64: (snippet: Snippet, score: Double)] = [:]
        for row in rows {
            let snippet = SnippetBuilder.snippet(
                section: row["section"], sectionLine: row["line"], aligned: row["aligned"],
                highlightedBody: row["body"], highlightedHeading: row["heading"])
            result[row["id"]] = (snippet, row["score"])
        }
        return result
    }

    /// SQL for the filters, on the `files` table aliased `f`.
    static func filterClause(_ filters: SearchFilters) -> (String, [(any DatabaseValueConvertible)?]) {
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
        if filters.hideProtected { clauses.append("NOT notes_protected(f.path)") }
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

    static func orderClause(_ sort: SearchSort, ranked: Bool) -> String {
        switch sort {
        case .relevance: return ranked ? "m.score, f.path" : "f.modified_ts DESC, f.path"
        case .modified: return "f.modified_ts DESC, f.path"
        case .created: return "f.created_ts DESC, f.path"
        case .path: return "f.path"
        case .title: return "f.title COLLATE NOCASE, f.path"
        }
    }
}
