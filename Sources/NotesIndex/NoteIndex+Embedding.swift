import Foundation
import GRDB
import NotesCore

extension NoteIndex {
    /// A token that changes whenever any process adds, removes, moves or changes a file in
    /// the index, or rebuilds it (``LayoutSnapshot``'s token, kept by triggers): a long-lived
    /// process embeds again when it moved, whoever brought the index up to date. Nil when the
    /// index cannot be read.
    public func filesStamp() -> String? {
        try? pool.read { try LayoutSnapshot.currentToken($0) }
    }

    /// Sections embedded per transaction: a pass killed mid-way keeps everything committed
    /// and the next pass continues from there.
    static let sectionsPerCommit = 8

    /// A section's embedding work, estimated from its share of its file's bytes: at most
    /// the passages a section keeps (8 of ~160 words of ~6 bytes), plus a fixed cost.
    static func embeddingWork(_ bytes: Int) -> Int {
        512 + min(max(0, bytes), TextChunks.maxChunksPerSection * TextChunks.wordsPerChunk * 6)
    }

    /// Embeds every section that has no current vectors (new, edited, or made under another
    /// model), smallest files first so that coverage grows fastest, and drops the vectors of
    /// sections that changed or are gone. Reads the texts from the index itself, so it runs
    /// after a refresh and never reads the workspace. Returns the number of passages embedded.
    ///
    /// Safe beside searches and refreshes in other processes: each batch is one short write
    /// transaction, and a batch whose section changed meanwhile is not stored. Only one
    /// process embeds at a time (``EmbeddingLease``): this waits for a background pass
    /// elsewhere to stop after its batch, and for another command to finish (`busy` after
    /// ``LockWait/timeout``).
    @discardableResult
    public func embedPending(
        with embedder: any TextEmbedder, progress: (EmbeddingProgress) -> Void = { _ in },
        shouldStop: () -> Bool = { false }
    ) throws(NotesError) -> Int {
        // The index opens first: nothing is created in a folder it refused (IndexFolder).
        _ = try pool
        let lease = try EmbeddingLease.waiting(directory: directory)
        return try withExtendedLifetime(lease) { () throws(NotesError) -> Int in
            try embedUnderLease(with: embedder, progress: progress, shouldStop: shouldStop)
        }
    }

    /// ``embedPending(with:progress:shouldStop:)`` for a process that embeds in the
    /// background: runs only when no other process embeds this index, and stops after its
    /// batch when a command waits to. Returns false when it did not run or stopped early for
    /// that command (the caller tries again later).
    public func embedPendingInBackground(
        with embedder: any TextEmbedder, shouldStop: () -> Bool
    ) throws(NotesError) -> Bool {
        _ = try pool
        guard let lease = EmbeddingLease.ifFree(directory: directory) else { return false }
        var yielded = false
        try withExtendedLifetime(lease) { () throws(NotesError) in
            _ = try embedUnderLease(
                with: embedder,
                shouldStop: {
                    if shouldStop() { return true }
                    yielded = lease.isWanted
                    return yielded
                })
        }
        return !yielded
    }

    private func embedUnderLease(
        with embedder: any TextEmbedder, progress: (EmbeddingProgress) -> Void = { _ in },
        shouldStop: () -> Bool
    ) throws(NotesError) -> Int {
        do {
            let pool = try self.pool
            try pool.write { db in
                let stored = try String.fetchOne(
                    db, sql: "SELECT value FROM meta WHERE key = 'embedding_model'")
                var changed = false
                if stored != embedder.identifier {
                    try db.execute(sql: "DELETE FROM chunks")
                    try db.execute(
                        sql:
                            "INSERT OR REPLACE INTO meta (key, value) VALUES ('embedding_model', ?)",
                        arguments: [embedder.identifier])
                    changed = true
                }
                let layout = try String.fetchOne(
                    db, sql: "SELECT value FROM meta WHERE key = 'passage_layout'")
                if layout != TextChunks.layout {
                    // Passages of an older layout: the first sections' are made again (the
                    // others are the same); from layout 2, only context.md's, whose title
                    // passage gained its role.
                    try db.execute(
                        sql: """
                            DELETE FROM chunks WHERE section_id & ? = 0
                            AND (? OR (section_id >> \(IndexSchema.sectionBits)) IN (SELECT id FROM files WHERE kind = ?))
                            """,
                        arguments: [
                            IndexSchema.rowsPerFile - 1, layout != "2",
                            DocumentKind.context.rawValue,
                        ])
                    try db.execute(
                        sql:
                            "INSERT OR REPLACE INTO meta (key, value) VALUES ('passage_layout', ?)",
                        arguments: [TextChunks.layout])
                    changed = true
                }
                try db.execute(
                    sql: """
                        DELETE FROM chunks WHERE NOT EXISTS
                            (SELECT 1 FROM sections s WHERE s.id = chunks.section_id AND s.fts_digest = chunks.section_digest)
                        """)
                // Only a change makes long-lived processes read the vectors again.
                if changed || db.changesCount > 0 { try VectorTable.renewGeneration(db) }
            }
            let pending = try pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT s.id AS id, s.fts_digest AS digest, f.size / max(1, f.section_count) AS share
                        FROM sections s JOIN files f ON f.id = (s.id >> \(IndexSchema.sectionBits))
                        WHERE f.indexed = 1 AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.section_id = s.id)
                        ORDER BY f.size, s.id
                        """
                ).map {
                    (
                        id: $0["id"] as Int64, digest: $0["digest"] as Int64,
                        work: Self.embeddingWork($0["share"] as Int)
                    )
                }
            }
            var done = 0
            var embedded = 0
            var workDone = 0
            let workTotal = pending.reduce(0) { $0 + $1.work }
            progress(
                EmbeddingProgress(
                    sectionsDone: 0, sectionsTotal: pending.count, chunks: 0, workDone: 0,
                    workTotal: workTotal))
            var start = 0
            while start < pending.count {
                if shouldStop() { break }
                let batch = pending[start..<min(pending.count, start + Self.sectionsPerCommit)]
                start += batch.count
                let texts = try pool.read { db in
                    try batch.map { section -> [TextChunks.Chunk] in
                        guard
                            let row = try Row.fetchOne(
                                db, sql: "SELECT title, heading, body FROM fts WHERE rowid = ?",
                                arguments: [section.id])
                        else { return [] }
                        let first = section.id & (IndexSchema.rowsPerFile - 1) == 0
                        let kind =
                            first
                            ? try String.fetchOne(
                                db, sql: "SELECT kind FROM files WHERE id = ?",
                                arguments: [section.id >> IndexSchema.sectionBits]
                            ).flatMap(DocumentKind.init(rawValue:)) : nil
                        return TextChunks.chunks(
                            title: FTSText.display(row["title"]),
                            heading: FTSText.display(row["heading"]),
                            body: FTSText.display(row["body"]),
                            titlePassage: first, role: kind.flatMap(TextChunks.role(of:)))
                    }
                }
                let vectors: [[Float]]
                do {
                    vectors = try embedder.embed(texts.flatMap { $0.map(\.text) })
                } catch {
                    // The model's own error (OpenBLAS missing, a model that does not load)
                    // says what to do; the index itself is fine.
                    if let notes = error as? NotesError { throw notes }
                    throw NotesError(.notFound, "cannot embed passages: \(error)")
                }
                var next = 0
                try pool.write { db in
                    for (section, chunks) in zip(batch, texts) {
                        let current =
                            try Bool.fetchOne(
                                db,
                                sql:
                                    "SELECT EXISTS (SELECT 1 FROM sections WHERE id = ? AND fts_digest = ?)",
                                arguments: [section.id, section.digest]) ?? false
                        let already =
                            try Bool.fetchOne(
                                db,
                                sql: "SELECT EXISTS (SELECT 1 FROM chunks WHERE section_id = ?)",
                                arguments: [section.id]) ?? false
                        defer { next += chunks.count }
                        guard current && !already else { continue }
                        if chunks.isEmpty {
                            try db.execute(
                                sql:
                                    "INSERT INTO chunks (section_id, section_digest, ordinal, line, vector) VALUES (?, ?, 0, 0, NULL)",
                                arguments: [section.id, section.digest])
                        }
                        for (ordinal, chunk) in chunks.enumerated() {
                            try db.execute(
                                sql:
                                    "INSERT INTO chunks (section_id, section_digest, ordinal, line, vector) VALUES (?, ?, ?, ?, ?)",
                                arguments: [
                                    section.id, section.digest, ordinal, chunk.line,
                                    VectorTable.encode(vectors[next + ordinal]),
                                ])
                        }
                    }
                    try VectorTable.renewGeneration(db)
                }
                done += batch.count
                embedded += vectors.count
                workDone += batch.reduce(0) { $0 + $1.work }
                progress(
                    EmbeddingProgress(
                        sectionsDone: done, sectionsTotal: pending.count, chunks: embedded,
                        workDone: workDone, workTotal: workTotal))
            }
            return embedded
        } catch let error as NotesError {
            throw error
        } catch {
            throw wrap(error)
        }
    }

    /// Indexed files with at least one section: what search by meaning can cover (a file of
    /// front matter alone, or an empty one, has no text to embed and never counts as missing).
    static func filesWithText(_ db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT count(*) FROM files WHERE indexed = 1 AND section_count > 0") ?? 0
    }

    /// How many files have text, how many of those have passages, how many have them for
    /// every section, and how many passages those files have (a deleted file's are left out
    /// before the next pass removes them).
    struct FilesWithText {
        var files = 0
        var withPassages = 0
        var covered = 0
        var passages = 0
    }

    /// Files with text, those of them with passages in `table`, and those whose every
    /// section has passages there (a pass stopped mid-file leaves that file with passages
    /// but not covered), from the table a search has already read.
    static func filesWithText(_ db: Database, coveredBy table: VectorTable) throws
        -> FilesWithText
    {
        let perFile = table.fileSections.perFile
        var counts = FilesWithText()
        let rows = try Row.fetchCursor(
            db, sql: "SELECT id, section_count FROM files WHERE indexed = 1 AND section_count > 0")
        while let row = try rows.next() {
            counts.files += 1
            let sections: Int = row[1]
            guard let known = perFile[row[0]] else { continue }
            counts.withPassages += 1
            counts.passages += known.passages
            if known.leadingSections >= min(sections, Int(IndexSchema.rowsPerFile)) {
                counts.covered += 1
            }
        }
        return counts
    }

    /// How many indexed files with text have vectors for every section, counted as a search
    /// counts them (``storedVectors(found:)``): `notes status`, `get_context` and a search
    /// agree, a pass in progress included.
    public func semanticCoverage() throws(NotesError) -> SemanticCoverage {
        try storedVectors { _, _ in }.coverage
    }
}
