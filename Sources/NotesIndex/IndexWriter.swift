import Foundation
import GRDB
import NotesCore
import NotesDocuments

/// Applies parsed batches to the database. Used from one serial queue at a time, so its
/// state needs no lock; the refresh reads `counts` and `failure` after draining the queue.
final class IndexWriter: @unchecked Sendable {
    struct Counts {
        var added = 0, modified = 0, touched = 0, removed = 0, vanished = 0, bytesParsed = 0
        /// FTS column texts inserted from recorded tokens (``TokenReplay``).
        var replayedTexts = 0
        var renames: [RefreshReport.Rename] = []
        var diagnostics: [Diagnostic] = []
        /// The files removed or moved, as the change history is told (``ChangeLedger``).
        var removals: [OutsideRemoval] = []
    }

    /// The live pool, or a fresh build's private database (``NoteIndex/buildFresh``).
    private let pool: any DatabaseWriter
    /// Indexed files no longer on disk, by path; a new file with one's digest is a rename.
    private var gone: [String: KnownFile]
    private var goneByDigest: [String: [String]] = [:]
    /// Files modified after this instant (ns) are recorded with mtime 0, so the next refresh
    /// re-hashes them: an edit within the filesystem's timestamp granularity is never missed.
    private let racyBefore: Int64
    private(set) var counts = Counts()
    private(set) var failure: (any Error)?
    /// Seconds spent in write transactions.
    private(set) var seconds = 0.0

    /// A large refresh (a first index, a rebuild) lets FTS5 pile up segments instead of
    /// merging as it goes, and merges once at the end: about a third less work overall.
    private let bulk: Bool
    private var mergeModeSet = false

    /// The database started empty (a fresh build's private file): no path can already have
    /// a row, so ``upsert`` skips looking for one, and all batches go into one transaction
    /// that ``finish()`` commits (the pool must allow unsafe transactions).
    private let startsEmpty: Bool

    /// The policy the batches' `hidden` verdicts were decided under (``HiddenFiles``).
    private let policy: PathPolicy
    /// Whether the files' hidden flags were set under `policy` when the refresh began (else
    /// every batch writes, re-flagging them).
    private let hiddenFlagsCurrent: Bool

    /// The layout token the refresh read with the known files, then the one each of this
    /// writer's transactions left; nil once a transaction found another (another process
    /// changed the layout meanwhile) or changed more than files' stat facts. While not nil,
    /// the known files with the facts in ``restatted`` are the database's layout.
    private(set) var layoutTokenAfterRestats: String?
    /// The new stat facts of known files whose rows were rewritten in place (same id, same
    /// path): with the known files and ``layoutTokenAfterRestats``, the layout after this refresh.
    private(set) var restatted: [Int64: (size: Int, mtimeNanos: Int64, inode: UInt64)] = [:]

    /// How a writer writes.
    enum Mode {
        /// A fresh build's private, empty database (``NoteIndex/buildFresh``): bulk merging,
        /// one transaction for the whole build, no existing row to look for.
        case freshBuild
        /// The live database, brought up to date.
        case update(Update)
    }

    /// What an update of the live database starts from.
    struct Update {
        /// Indexed files no longer on disk, by path (a new file with one's digest is a rename).
        var gone: [String: KnownFile] = [:]
        /// A large refresh: FTS5 merges once at the end (``bulk``).
        var bulk = false
        /// The layout token read with the known files (``layoutTokenAfterRestats``), nil
        /// when the refresh looked at some paths only.
        var layoutToken: String?
        /// Whether the files' hidden flags were set under the policy when the refresh began.
        var hiddenFlagsCurrent = false
    }

    /// A writer into `pool` in `mode`; files modified after `racyBefore` (ns) are stored
    /// with mtime 0, and the batches' hidden verdicts were decided under `policy`.
    init(pool: any DatabaseWriter, mode: Mode, racyBefore: Int64, policy: PathPolicy) {
        self.pool = pool
        self.policy = policy
        self.racyBefore = racyBefore
        switch mode {
        case .freshBuild:
            (gone, bulk, startsEmpty, layoutTokenAfterRestats, hiddenFlagsCurrent) = (
                [:], true, true, nil, false
            )
        case .update(let update):
            (gone, bulk, startsEmpty, layoutTokenAfterRestats, hiddenFlagsCurrent) = (
                update.gone, update.bulk, false, update.layoutToken, update.hiddenFlagsCurrent
            )
        }
        for (path, file) in gone where !file.digest.isEmpty {
            goneByDigest[file.digest, default: []].append(path)
        }
    }

    /// Writes `batch`, its rows' provenance from `provenance` (settled for the bytes the
    /// batch read: ``ChangeLedger``).
    func write(_ batch: [ProcessedFile], provenance: any ProvenanceLookup) {
        guard failure == nil else { return }
        // Files re-checked while too recent to trust, found as recorded (or gone before they
        // were read): no transaction at all, so a search right after an edit writes nothing.
        if !startsEmpty && hiddenFlagsCurrent && batch.allSatisfy(writesNothing) {
            for item in batch {
                if case .vanished = item.outcome {
                    counts.vanished += 1
                    layoutTokenAfterRestats = nil
                }
            }
            return
        }
        let began = Timestamp.now()
        defer { seconds += Timestamp.now() - began }
        do {
            if startsEmpty {
                // A fresh build's private file: one transaction for the whole build, as the
                // floor does. FTS5 flushes its pending terms into a new segment at every
                // commit, so committing per batch meant more segments and merges.
                try pool.writeWithoutTransaction { db in
                    if !db.isInsideTransaction { try db.beginTransaction(.immediate) }
                    try apply(batch, provenance, db)
                }
            } else {
                try pool.write { db in
                    if layoutTokenAfterRestats != nil,
                        try LayoutSnapshot.currentToken(db) != layoutTokenAfterRestats
                    {
                        layoutTokenAfterRestats = nil
                    }
                    try apply(batch, provenance, db)
                    if layoutTokenAfterRestats != nil {
                        layoutTokenAfterRestats = try LayoutSnapshot.currentToken(db)
                    }
                }
            }
        } catch {
            failure = error
            if startsEmpty {  // the build is abandoned; leave no transaction open on the file
                try? pool.writeWithoutTransaction { db in
                    if db.isInsideTransaction { try db.rollback() }
                }
            }
        }
    }

    private func apply(_ batch: [ProcessedFile], _ provenance: any ProvenanceLookup, _ db: Database)
        throws
    {
        if !mergeModeSet {
            // Set on every refresh that writes, so a bulk refresh killed half-way
            // cannot leave merging off for good.
            try setMergeMode(bulk: bulk, db)
            mergeModeSet = true
        }
        // Another process (with another policy) may have written since our last batch.
        try HiddenFiles.adopt(policy, db)
        let inserts = try WriteStatements(db)
        for item in batch { try apply(item, provenance, inserts, db) }
    }

    /// Whether applying `item` would change no row: a file gone before it was read, or a
    /// re-check whose bytes, size, inode and stored mtime are what the row holds.
    private func writesNothing(_ item: ProcessedFile) -> Bool {
        switch item.outcome {
        case .vanished:
            return true
        case .touched:
            guard let known = item.pending.known else { return true }
            return row(of: known, holds: item.pending.file)
        default:
            return false
        }
    }

    /// The mtime stored for `file`: 0 while it is too recent to trust (the next refresh
    /// then re-hashes it, so an edit within the timestamp granularity is never missed).
    private func storedMtime(_ file: ScannedFile) -> Int64 {
        file.mtimeNanos >= racyBefore ? 0 : file.mtimeNanos
    }

    /// Whether `known`'s row already holds `file`'s stat facts as they would be stored.
    private func row(of known: KnownFile, holds file: ScannedFile) -> Bool {
        known.size == file.size && known.mtimeNanos == storedMtime(file)
            && known.inode == file.inode
    }

    /// The writes of one transaction (``DirectStatement``).
    final class WriteStatements {
        let file, fileUpdate, fts, section, tag, metadata, link, diagnostic: DirectStatement

        init(_ db: Database) throws {
            file = try DirectStatement(db, IndexWriter.insertFileSQL)
            fileUpdate = try DirectStatement(db, IndexWriter.updateFileSQL)
            fts = try DirectStatement(
                db, "INSERT INTO fts (rowid, title, heading, tags, body) VALUES (?, ?, ?, ?, ?)")
            section = try DirectStatement(
                db,
                "INSERT INTO sections (id, heading, level, line, aligned, fts_digest) VALUES (?, ?, ?, ?, ?, ?)"
            )
            tag = try DirectStatement(db, "INSERT OR IGNORE INTO tags (file_id, tag) VALUES (?, ?)")
            metadata = try DirectStatement(
                db, "INSERT INTO metadata (id, file_id, key, value) VALUES (?, ?, ?, ?)")
            link = try DirectStatement(
                db,
                "INSERT INTO links (id, file_id, kind, target, text, line) VALUES (?, ?, ?, ?, ?, ?)"
            )
            diagnostic = try DirectStatement(
                db,
                "INSERT INTO diagnostics (id, file_id, code, message, line) VALUES (?, ?, ?, ?, ?)")
        }
    }

    /// Removes the files that disappeared and were not renamed, and ends bulk mode.
    func finish() {
        guard failure == nil, !gone.isEmpty || bulk || startsEmpty else { return }
        let began = Timestamp.now()
        defer { seconds += Timestamp.now() - began }
        do {
            if startsEmpty {
                try pool.writeWithoutTransaction { db in
                    if db.isInsideTransaction { try db.commit() }
                }
            }
            if !gone.isEmpty { layoutTokenAfterRestats = nil }
            try pool.write { db in
                // Merging resumes with the next writes (a search over an unmerged first
                // index costs hardly more).
                if bulk { try setMergeMode(bulk: false, db) }
                var vectorsDropped = false
                for (path, file) in gone {
                    try deleteContent(of: file.id, db)
                    // Its passages go with it: a file added later may be given its id.
                    let rows = IndexSchema.rowIDs(file: file.id)
                    try db.cachedStatement(
                        sql: "DELETE FROM chunks WHERE section_id BETWEEN ? AND ?"
                    ).execute(arguments: [rows.lowerBound, rows.upperBound])
                    vectorsDropped = vectorsDropped || db.changesCount > 0
                    try db.execute(sql: "DELETE FROM files WHERE id = ?", arguments: [file.id])
                    try FolderStamps.unstampFolder(of: path, db)
                    counts.removed += 1
                    if !file.digest.isEmpty {
                        counts.removals.append(
                            OutsideRemoval(path: path, version: String(file.digest.prefix(16))))
                    }
                }
                if vectorsDropped { try VectorTable.renewGeneration(db) }
            }
            gone.removeAll()
        } catch {
            failure = error
        }
    }

    /// FTS5's defaults are automerge 4, crisismerge 16; bulk mode stops automatic merges
    /// (crisismerge still bounds the segments per level).
    private func setMergeMode(bulk: Bool, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO fts(fts, rank) VALUES ('automerge', ?)", arguments: [bulk ? 0 : 4])
        try db.execute(
            sql: "INSERT INTO fts(fts, rank) VALUES ('crisismerge', ?)", arguments: [bulk ? 64 : 16]
        )
    }

    private func apply(
        _ item: ProcessedFile, _ provenance: any ProvenanceLookup, _ inserts: WriteStatements,
        _ db: Database
    ) throws {
        let file = item.pending.file
        let mtime = storedMtime(file)
        switch item.outcome {
        case .vanished:
            counts.vanished += 1
            layoutTokenAfterRestats = nil
        case .touched:
            guard let known = item.pending.known else { return }
            // A file re-checked while still too recent to trust (mtime 0 before and after)
            // keeps its row as it is: rewriting the same values would still fire the layout
            // triggers and void the layout snapshot of every search in those two seconds.
            if !row(of: known, holds: file) {
                try db.execute(
                    sql: "UPDATE files SET size = ?, mtime_ns = ?, inode = ? WHERE id = ?",
                    arguments: [file.size, mtime, Int64(bitPattern: file.inode), known.id])
                restatted[known.id] = (file.size, mtime, file.inode)
            }
            // A re-check of a recently written file (recorded with mtime 0) is not a touch.
            if known.mtimeNanos != 0 { counts.touched += 1 }
        case .listedOnly(let digest, let diagnostics):
            let (id, _) = try upsert(
                file: file, known: item.pending.known, mtime: mtime, digest: digest, document: nil,
                text: nil, hidden: item.hidden, provenance, inserts, db)
            try insertDiagnostics(diagnostics, fileID: id, inserts)
            counts.diagnostics += diagnostics
        case .parsed(let digest, let document, let bytes, let text):
            let (id, keptRows) = try upsert(
                file: file, known: item.pending.known, mtime: mtime, digest: digest,
                document: document, text: text, hidden: item.hidden, provenance, inserts, db)
            _ = TokenReplay.replayedCount()
            try insertContent(document, text: text, fileID: id, keeping: keptRows, inserts)
            counts.replayedTexts += TokenReplay.replayedCount()
            counts.diagnostics += document.diagnostics
            counts.bytesParsed += bytes
        }
    }

    /// Writes the `files` row (new, modified or renamed) and returns its id. Content rows of
    /// an existing id are deleted first, except the FTS rows `text` has unchanged (returned).
    private func upsert(
        file: ScannedFile, known: KnownFile?, mtime: Int64, digest: String,
        document: ParsedDocument?, text: SearchableText?, hidden: Bool,
        _ lookup: any ProvenanceLookup, _ inserts: WriteStatements, _ db: Database
    ) throws -> (id: Int64, keptRows: Set<Int64>) {
        let kind = DocumentKind(path: file.path)
        let format = FileFormat(path: file.path)
        let mtimeSeconds = Double(file.mtimeNanos) / 1e9
        let provenance = columns(
            of: lookup.effective(
                path: file.path, stated: document?.provenance ?? Provenance(),
                version: String(digest.prefix(16)), mtime: mtimeSeconds),
            mtimeSeconds: mtimeSeconds)
        let title = document?.title ?? DocumentParser.fileTitle(file.path)
        let existingID: Int64?
        if !startsEmpty,
            let known = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM files WHERE path = ?"),
                arguments: [file.path])
        {
            existingID = known
            counts.modified += 1
            restatted[known] = (file.size, mtime, file.inode)
        } else if !digest.isEmpty, var candidates = goneByDigest[digest],
            let from = candidates.popLast()
        {
            layoutTokenAfterRestats = nil
            goneByDigest[digest] = candidates
            existingID = gone.removeValue(forKey: from)?.id
            counts.renames.append(.init(from: from, to: file.path))
            counts.removals.append(
                OutsideRemoval(path: from, version: String(digest.prefix(16)), movedTo: file.path))
            try FolderStamps.unstampFolder(of: from, db)
        } else {
            existingID = nil
            counts.added += 1
            layoutTokenAfterRestats = nil
        }
        var keptRows = Set<Int64>()
        if let id = existingID {
            keptRows = try deleteContent(of: id, keepingUnchanged: text?.digests ?? [], db)
        }
        // The columns in `fileColumns` order (then the id, for an update).
        let row = existingID == nil ? inserts.file : inserts.fileUpdate
        row.bind(file.path)
        row.bind(kind.rawValue)
        row.bind(format.rawValue)
        row.bind(file.size)
        row.bind(mtime)
        row.bind(Int64(bitPattern: file.inode))
        row.bind(digest)
        row.bind(title)
        row.bind(provenance.createdBy)
        row.bind(provenance.createdAt)
        row.bind(provenance.createdTS)
        row.bind(provenance.modifiedBy)
        row.bind(provenance.modifiedAt)
        row.bind(provenance.modifiedTS)
        row.bind(document?.hasFrontMatter ?? false)
        row.bind(document != nil)
        row.bind(document?.sections.count ?? 0)
        row.bind(hidden)
        if let id = existingID { row.bind(id) }
        try row.run()
        return (existingID ?? db.lastInsertedRowID, keptRows)
    }

    /// The `files` columns that hold a provenance (`created_ts`/`modified_ts` order by it).
    private struct ProvenanceColumns {
        var createdBy: String, createdAt: String?, createdTS: Double, modifiedBy: String,
            modifiedAt: String, modifiedTS: Double
    }

    private func columns(of effective: Provenance, mtimeSeconds: Double) -> ProvenanceColumns {
        ProvenanceColumns(
            createdBy: effective.createdBy?.rawValue ?? Actor.user.rawValue,
            createdAt: effective.createdAt,
            createdTS: effective.createdAt.flatMap(Timestamp.parse) ?? mtimeSeconds,
            modifiedBy: effective.lastModifiedBy?.rawValue ?? Actor.user.rawValue,
            modifiedAt: effective.lastModifiedAt ?? Timestamp.format(mtimeSeconds),
            modifiedTS: effective.lastModifiedAt.flatMap(Timestamp.parse) ?? mtimeSeconds)
    }

    private static let fileColumns = [
        "path", "kind", "format", "size", "mtime_ns", "inode", "digest", "title", "created_by",
        "created_at", "created_ts",
        "modified_by", "modified_at", "modified_ts", "has_front_matter", "indexed", "section_count",
        "hidden",
    ]
    private static let insertFileSQL =
        "INSERT INTO files (\(fileColumns.joined(separator: ", "))) VALUES (\(fileColumns.map { _ in "?" }.joined(separator: ", ")))"
    private static let updateFileSQL =
        "UPDATE files SET \(fileColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    /// Deletes file `id`'s content rows, except the FTS rows whose texts a new version of
    /// the file has unchanged (`newDigests`: its sections' ``SearchableText/digests``, by
    /// ordinal), which are returned: FTS5 tokenizes a deleted row again to take its terms
    /// out, so an append to a long file rewrites its last section only, and a renamed file
    /// keeps all of its rows. The other tables' rows are all rewritten (cheap).
    @discardableResult
    private func deleteContent(
        of id: Int64, keepingUnchanged newDigests: [Int64] = [], _ db: Database
    ) throws -> Set<Int64> {
        let ids = IndexSchema.rowIDs(file: id)
        let (low, high) = (ids.lowerBound, ids.upperBound)
        // Row by row by rowid, found in `sections` (one row per FTS row): a rowid range on
        // the FTS table itself costs more per deleted row.
        var old: [(rowid: Int64, digest: Int64)] = []
        let rows = try Row.fetchCursor(
            db.cachedStatement(sql: "SELECT id, fts_digest FROM sections WHERE id BETWEEN ? AND ?"),
            arguments: [low, high])
        while let row = try rows.next() { old.append((row[0], row[1])) }
        var kept = Set<Int64>()
        let deleteRow = try db.cachedStatement(sql: "DELETE FROM fts WHERE rowid = ?")
        for (rowid, digest) in old {
            let ordinal = Int(rowid - low)
            if ordinal < newDigests.count && newDigests[ordinal] == digest {
                kept.insert(rowid)
            } else {
                try deleteRow.execute(arguments: [rowid])
            }
        }
        try db.cachedStatement(sql: "DELETE FROM sections WHERE id BETWEEN ? AND ?").execute(
            arguments: [low, high])
        try db.cachedStatement(sql: "DELETE FROM tags WHERE file_id = ?").execute(arguments: [id])
        for table in ["metadata", "links", "diagnostics"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE id BETWEEN ? AND ?").execute(
                arguments: [low, high])
        }
        return kept
    }

    /// Inserts the content rows of file `fileID`; FTS rows in `keptRows` are already there.
    private func insertContent(
        _ document: ParsedDocument, text: SearchableText, fileID: Int64,
        keeping keptRows: Set<Int64>, _ inserts: WriteStatements
    ) throws {
        let limit = Int(IndexSchema.rowsPerFile)
        for (ordinal, section) in document.sections.enumerated() where ordinal < limit {
            let rowid = IndexSchema.rowID(file: fileID, ordinal)
            if !keptRows.contains(rowid) {
                let fts = inserts.fts
                // The texts are bound in place (not copied by SQLite) for the one INSERT.
                try text.replaying(section: ordinal) { title, heading, tags, body in
                    fts.bind(rowid)
                    fts.bindInPlace(title)
                    fts.bindInPlace(heading)
                    fts.bindInPlace(tags)
                    fts.bindInPlace(body)
                    try fts.runDroppingBindings()
                }
            }
            let row = inserts.section
            row.bind(rowid)
            row.bind(section.heading)
            row.bind(section.level)
            row.bind(section.line)
            row.bind(section.lineAligned)
            row.bind(text.digests[ordinal])
            try row.run()
        }
        for tag in document.tags {
            inserts.tag.bind(fileID)
            inserts.tag.bind(tag)
            try inserts.tag.run()
        }
        var n = 0
        for field in document.metadata where !Self.dedicatedKeys.contains(field.key.lowercased()) {
            for value in field.value.strings where value.utf8.count <= 512 && n < limit {
                inserts.metadata.bind(IndexSchema.rowID(file: fileID, n))
                n += 1
                inserts.metadata.bind(fileID)
                inserts.metadata.bind(field.key)
                inserts.metadata.bind(value)
                try inserts.metadata.run()
            }
        }
        for (n, link) in document.links.enumerated() where n < limit {
            let insert = inserts.link
            insert.bind(IndexSchema.rowID(file: fileID, n))
            insert.bind(fileID)
            insert.bind(link.kind.rawValue)
            insert.bind(link.target)
            insert.bind(link.text)
            insert.bind(link.line)
            try insert.run()
        }
        try insertDiagnostics(document.diagnostics, fileID: fileID, inserts)
    }

    /// Front-matter keys kept in `files` or `tags` rather than `metadata` (the query parser
    /// maps them: ``SearchQuery/keyAliases``).
    static let dedicatedKeys: Set<String> = [
        "title", "tags", "tag", "created_by", "created_at", "last_modified_by", "last_modified_at",
    ]

    private func insertDiagnostics(
        _ diagnostics: [Diagnostic], fileID: Int64, _ inserts: WriteStatements
    ) throws {
        for (n, d) in diagnostics.enumerated() where n < Int(IndexSchema.rowsPerFile) {
            let insert = inserts.diagnostic
            insert.bind(IndexSchema.rowID(file: fileID, n))
            insert.bind(fileID)
            insert.bind(d.code.rawValue)
            insert.bind(d.message)
            insert.bind(d.line)
            try insert.run()
        }
    }
}
