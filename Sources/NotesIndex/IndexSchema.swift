import Foundation
import GRDB
import NotesDocuments

/// The index's tables (one owner of the schema). The index is a cache of the files: a
/// schema change simply rebuilds it, so migrations never need to convert data.
///
/// - `files`: one row per workspace file (indexed or only listed), with stat facts for
///   change detection, the content digest, title and effective provenance.
/// - `sections` / `fts`: one row per section; `rowid = file id << 24 | ordinal`, so a
///   section's file is `rowid >> 24` without a join, and a file's sections are one range.
///   `sections.fts_digest` hashes the section's FTS row (``SearchableText/digests``): a
///   modified or renamed file rewrites only the FTS rows whose texts changed.
/// - `tags`, `metadata`, `links`, `diagnostics`: per-file facts for filters and status. The
///   last three number their rows like sections (`id = file id << 24 | n`), so a file's rows
///   are one range and need no index on `file_id` for the per-file deletes.
/// - `files.hidden`: whether the agent's policy hides the file (``HiddenFiles``).
/// - `folders`: each folder's stamp from the last walk that listed it (``FolderStamps``).
/// - `chunks`: each section's passages and their embedding vectors (``NoteIndex/embedPending(with:progress:shouldStop:)``);
///   `meta.embedding_model` names the model they came from.
enum IndexSchema {
    /// Bump to rebuild every existing index (the cache is re-derived from the files). The
    /// parser's version is part of it: a parsing change also rebuilds.
    static let version = "9.\(DocumentParser.version)"

    /// BM25 column weights for (title, heading, tags, body): title ≫ headings, tags ≫ body.
    static let weights = (title: 10.0, heading: 4.0, tags: 6.0, body: 1.0)
    /// The weights as SQL arguments. `NOTES_FIELD_WEIGHTS=t,h,g,b` overrides them: a
    /// benchmarking knob (bench/run.py measures known-item success with and without them).
    private static let weightArguments: String = {
        if let text = ProcessInfo.processInfo.environment["NOTES_FIELD_WEIGHTS"] {
            let values = text.split(separator: ",").compactMap { Double($0) }
            if values.count == 4 { return values.map { "\($0)" }.joined(separator: ", ") }
        }
        return "\(weights.title), \(weights.heading), \(weights.tags), \(weights.body)"
    }()
    /// The ranking expression: BM25 with the weights, as `notes_rank` computes it (equal to
    /// FTS5's `bm25()`; ``SectionRank``).
    static let ranking = "notes_rank(fts, \(weightArguments))"
    /// The same with FTS5's own `bm25()` (the reference `notes_rank` is tested against).
    static let bm25 = "bm25(fts, \(weightArguments))"

    /// A file's rows in `sections`, `metadata`, `links` and `diagnostics` are numbered below 2^24.
    static let sectionBits: Int64 = 24
    /// How many rows of one table a file can have (the rest are not indexed).
    static let rowsPerFile: Int64 = 1 << sectionBits

    /// The id of file `fileID`'s row number `n` (below ``rowsPerFile``) in a per-file table.
    static func rowID(file fileID: Int64, _ n: Int) -> Int64 { fileID << sectionBits | Int64(n) }

    /// The ids file `fileID`'s rows can have in a per-file table.
    static func rowIDs(file fileID: Int64) -> ClosedRange<Int64> {
        rowID(file: fileID, 0)...rowID(file: fileID, 0) + rowsPerFile - 1
    }

    /// Creates every table and, unless a bulk load follows (``createSecondaryIndexes(_:)``
    /// after it: building an index once is cheaper than maintaining it row by row), the
    /// secondary indexes.
    static func create(_ db: Database, secondaryIndexes: Bool = true) throws {
        try db.execute(
            sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                INSERT INTO meta (key, value) VALUES (\(databaseToken));
                CREATE TABLE files (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,
                    kind TEXT NOT NULL,
                    format TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    digest TEXT NOT NULL,
                    title TEXT NOT NULL,
                    created_by TEXT NOT NULL,
                    created_at TEXT,
                    created_ts REAL,
                    modified_by TEXT NOT NULL,
                    modified_at TEXT NOT NULL,
                    modified_ts REAL NOT NULL,
                    has_front_matter INTEGER NOT NULL,
                    indexed INTEGER NOT NULL,
                    section_count INTEGER NOT NULL,
                    hidden INTEGER NOT NULL
                );
                CREATE TABLE sections (
                    id INTEGER PRIMARY KEY,
                    heading TEXT NOT NULL,
                    level INTEGER NOT NULL,
                    line INTEGER NOT NULL,
                    aligned INTEGER NOT NULL,
                    fts_digest INTEGER NOT NULL
                );
                CREATE TABLE tags (file_id INTEGER NOT NULL, tag TEXT NOT NULL COLLATE NOCASE, PRIMARY KEY (file_id, tag)) WITHOUT ROWID;
                CREATE TABLE metadata (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, key TEXT NOT NULL COLLATE NOCASE, value TEXT NOT NULL COLLATE NOCASE);
                CREATE TABLE links (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL, text TEXT NOT NULL, line INTEGER NOT NULL);
                CREATE TABLE diagnostics (id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL, line INTEGER);
                CREATE TABLE folders (path TEXT PRIMARY KEY, inode INTEGER NOT NULL, ctime_ns INTEGER NOT NULL) WITHOUT ROWID;
                -- A section's passages and their vectors (NoteIndex+Embedding): current while
                -- section_digest is the section's fts_digest; a NULL vector marks a section
                -- with nothing to embed.
                CREATE TABLE chunks (id INTEGER PRIMARY KEY, section_id INTEGER NOT NULL, section_digest INTEGER NOT NULL,
                                     ordinal INTEGER NOT NULL, line INTEGER NOT NULL, vector BLOB);
                CREATE INDEX chunks_by_section ON chunks(section_id);
                CREATE VIRTUAL TABLE fts USING fts5(title, heading, tags, body, tokenize = '\(TokenReplay.tokenizer)');
                -- Partial: holds only the few hidden files, so it costs nothing to keep during a
                -- bulk load (built afterwards it was a scan of every files row).
                CREATE INDEX files_hidden ON files(id) WHERE hidden;
                """)
        if secondaryIndexes {
            try createSecondaryIndexes(db)
            try createLayoutTriggers(db)
        }
    }

    /// `meta.database_token`'s row: a random value new in every database created, so that a
    /// rebuild put in place of an index is told from it by what kept its lengths
    /// (``SectionRank``), even when FTS5's records of both read the same.
    static let databaseToken = "'database_token', hex(randomblob(8))"

    /// Triggers that store a new random `meta.layout` token whenever a `files` row is
    /// added, removed, moved or given new stat facts, or a `folders` row changes: the
    /// ``LayoutSnapshot`` of an older layout is then never believed. Triggers rather than
    /// code at each write, so that every writer keeps them, an older `notes` sharing the
    /// index included. A bulk load creates them after its rows (``NoteIndex/buildFresh``).
    static func createLayoutTriggers(_ db: Database) throws {
        let newToken =
            "INSERT OR REPLACE INTO meta (key, value) VALUES ('layout', hex(randomblob(8)))"
        var sql = ""
        for (table, events) in [
            ("files", ["INSERT", "DELETE", "UPDATE OF path, size, mtime_ns, inode"]),
            ("folders", ["INSERT", "DELETE", "UPDATE"]),
        ] {
            for (n, event) in events.enumerated() {
                sql +=
                    "CREATE TRIGGER IF NOT EXISTS \(layoutTriggerPrefix)\(table)_\(n) AFTER \(event) ON \(table) BEGIN \(newToken); END;\n"
            }
        }
        try db.execute(sql: sql + newToken)
    }

    /// The names of the triggers of ``createLayoutTriggers(_:)`` start with this.
    static let layoutTriggerPrefix = "layout_after_"
    /// How many there are.
    static let layoutTriggerCount = 6

    /// The indexes for filters. (None on `digest`: renames are found in memory from the
    /// `files` rows the refresh reads anyway. None on `links`: nothing queries them yet.)
    static func createSecondaryIndexes(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE INDEX tags_by_tag ON tags(tag);
                CREATE INDEX metadata_by_key ON metadata(key, value);
                """)
    }
}
