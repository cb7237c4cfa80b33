import CVectorKernels
import Foundation
import GRDB
import NotesCore

/// The stored passage vectors, laid out for brute-force nearest-neighbour search: one dot
/// product per passage, which at the sizes a notes folder reaches (tens of thousands of
/// passages) needs no approximate index and is exact.
///
/// Vectors are 8-bit integers with one scale per vector (a quarter of the bytes of floats;
/// cosine similarities move by about 0.001), kept as stored: the query stays in floats and
/// each passage's bytes are widened as they are read. Rows are ordered by section, so one
/// file's passages are adjacent. A long-lived process keeps the table while
/// `meta.chunks_generation` (renewed by every write to `chunks`) is unchanged; a short one
/// maps it from the index's vector file (``VectorFile``) instead of decoding every row.
struct VectorTable: Sendable {
    let generation: String
    let dimensions: Int
    let storage: Storage

    var count: Int { storage.count }
    var sectionIDs: UnsafeBufferPointer<Int64> { storage.sectionIDs }
    var digests: UnsafeBufferPointer<Int64> { storage.digests }
    var lines: UnsafeBufferPointer<Int32> { storage.lines }
    var scales: UnsafeBufferPointer<Float> { storage.scales }
    /// Row-major, `dimensions` bytes per passage.
    var values: UnsafeBufferPointer<Int8> { storage.values }

    /// The table's columns, in memory this process owns or in a read-only file mapping.
    final class Storage: @unchecked Sendable {
        let count: Int
        let sectionIDs: UnsafeBufferPointer<Int64>
        let digests: UnsafeBufferPointer<Int64>
        let lines: UnsafeBufferPointer<Int32>
        let scales: UnsafeBufferPointer<Float>
        let values: UnsafeBufferPointer<Int8>
        /// The files with passages, made at the first search that asks (a long-lived process
        /// keeps the table, and so these, until the vectors change).
        let fileSections = Locked<FileSections?>(nil)
        private let release: () -> Void

        init(
            count: Int, sectionIDs: UnsafeBufferPointer<Int64>, digests: UnsafeBufferPointer<Int64>,
            lines: UnsafeBufferPointer<Int32>,
            scales: UnsafeBufferPointer<Float>, values: UnsafeBufferPointer<Int8>,
            release: @escaping () -> Void
        ) {
            self.count = count
            self.sectionIDs = sectionIDs
            self.digests = digests
            self.lines = lines
            self.scales = scales
            self.values = values
            self.release = release
        }

        /// Copies of the columns in memory of its own.
        convenience init(
            sectionIDs: [Int64], digests: [Int64], lines: [Int32], scales: [Float], values: [Int8]
        ) {
            func copy<T>(_ array: [T]) -> UnsafeBufferPointer<T> {
                let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, array.count))
                _ = buffer.initialize(from: array)
                return UnsafeBufferPointer(rebasing: buffer[..<array.count])
            }
            let columns = (copy(sectionIDs), copy(digests), copy(lines), copy(scales), copy(values))
            self.init(
                count: sectionIDs.count, sectionIDs: columns.0, digests: columns.1,
                lines: columns.2, scales: columns.3, values: columns.4
            ) {
                for pointer in [
                    UnsafeRawPointer(columns.0.baseAddress),
                    UnsafeRawPointer(columns.1.baseAddress),
                    UnsafeRawPointer(columns.2.baseAddress),
                    UnsafeRawPointer(columns.3.baseAddress),
                    UnsafeRawPointer(columns.4.baseAddress),
                ] {
                    pointer.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
                }
            }
        }

        deinit { release() }
    }

    /// `[Float32 scale][Int8 × dimensions]`.
    static func encode(_ vector: [Float]) -> Data {
        let largest = vector.reduce(0) { max($0, abs($1)) }
        let scale: Float = largest > 0 ? largest / 127 : 1
        var data = Data(capacity: 4 + vector.count)
        withUnsafeBytes(of: scale.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        for value in vector {
            data.append(UInt8(bitPattern: Int8(max(-127, min(127, (value / scale).rounded())))))
        }
        return data
    }

    static func renewGeneration(_ db: Database) throws {
        try db.execute(
            sql:
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('chunks_generation', hex(randomblob(8)))"
        )
    }

    static func generation(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'chunks_generation'") ?? ""
    }

    /// Every stored vector (current or not: a search checks the sections it keeps), read
    /// from the database row by row.
    static func load(_ db: Database) throws -> VectorTable {
        let generation = try generation(db)
        var sectionIDs: [Int64] = []
        var digests: [Int64] = []
        var lines: [Int32] = []
        var scales: [Float] = []
        var values: [Int8] = []
        var dimensions = 0
        let expected =
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chunks WHERE vector IS NOT NULL") ?? 0
        values.reserveCapacity(expected * 384)
        sectionIDs.reserveCapacity(expected)
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT section_id, section_digest, line, vector FROM chunks WHERE vector IS NOT NULL ORDER BY section_id, id"
        )
        while let row = try rows.next() {
            guard let data = row["vector"] as Data?, data.count > 4,
                dimensions == 0 || data.count - 4 == dimensions
            else { continue }
            dimensions = data.count - 4
            data.withUnsafeBytes { raw in
                scales.append(
                    Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))))
                values.append(contentsOf: raw[4...].bindMemory(to: Int8.self))
            }
            sectionIDs.append(row["section_id"])
            digests.append(row["section_digest"])
            lines.append(Int32(clamping: row["line"] as Int))
        }
        let storage = Storage(
            sectionIDs: sectionIDs, digests: digests, lines: lines, scales: scales, values: values)
        return VectorTable(generation: generation, dimensions: dimensions, storage: storage)
    }

    /// Which files have passages, and how far their sections do.
    struct FileSections {
        /// The files with at least one passage.
        var files: Set<Int64> = []
        /// Per file, how many of its sections, counted from its first, have passages (a file
        /// is covered when that reaches its section count), and how many passages it has.
        var perFile: [Int64: (leadingSections: Int, passages: Int)] = [:]
        /// The most passages any one file has.
        var mostPassages = 0
    }

    var fileSections: FileSections {
        storage.fileSections.withLock { known in
            if let known { return known }
            var made = FileSections()
            made.files.reserveCapacity(count / 2)
            made.perFile.reserveCapacity(count / 2)
            // Rows are ordered by section id (file << sectionBits | ordinal).
            var file: Int64 = -1
            var next = 0
            var passages = 0
            for id in sectionIDs {
                let owner = id >> IndexSchema.sectionBits
                let ordinal = Int(id & (IndexSchema.rowsPerFile - 1))
                if owner != file {
                    if file >= 0 {
                        made.perFile[file] = (next, passages)
                        made.mostPassages = max(made.mostPassages, passages)
                    }
                    made.files.insert(owner)
                    file = owner
                    next = 0
                    passages = 0
                }
                if ordinal == next { next += 1 }
                passages += 1
            }
            if file >= 0 {
                made.perFile[file] = (next, passages)
                made.mostPassages = max(made.mostPassages, passages)
            }
            known = made
            return made
        }
    }

    /// The files that have passages.
    var files: Set<Int64> { fileSections.files }

    /// One passage's match: its index in the table, its cosine similarity to the query, and
    /// the score its file is ranked by (the similarity less the file's length penalty).
    struct Match {
        let row: Int
        let similarity: Float
        var score: Float
    }

    /// How much a file's passages lower its score: `lengthPenalty × ln(passages / 16)` is
    /// taken from its best passage's similarity once it has more than ``passagesFree``. The
    /// best of a book's thousands of passages is near almost any question by chance, and
    /// would rank the book above the short note that answers it. A note of a few passages
    /// loses nothing: among notes, a penalty by count only reshuffled near ties.
    /// `NOTES_LENGTH_PENALTY` and `NOTES_LENGTH_FREE` override them for benchmarking.
    static let lengthPenalty: Float = {
        if let text = ProcessInfo.processInfo.environment["NOTES_LENGTH_PENALTY"],
            let value = Float(text), value.isFinite, value >= 0
        {
            return value
        }
        return 0.02
    }()

    /// How many passages a file has before its length costs it anything.
    static let passagesFree: Float = {
        if let text = ProcessInfo.processInfo.environment["NOTES_LENGTH_FREE"],
            let value = Float(text), value.isFinite, value >= 1
        {
            return value
        }
        return 16
    }()

    /// What a file of `passages` loses from its best passage's similarity.
    static func lengthPenalty(passages: Int) -> Float {
        lengthPenalty * log(max(1, Float(passages) / passagesFree))
    }

    /// The most a file's score is below its best passage's similarity in this table.
    var largestLengthPenalty: Float {
        Self.lengthPenalty(passages: fileSections.mostPassages)
    }

    /// The best passage of each file, best-scored files first (at most `limit` files).
    func bestPerFile(_ query: [Float], limit: Int) -> [Match] {
        guard dimensions > 0, query.count == dimensions, count > 0 else { return [] }
        let similarities = dotProducts(query)
        func scored(_ best: Match, passages: Int) -> Match {
            var best = best
            best.score -= Self.lengthPenalty(passages: passages)
            return best
        }
        // Rows are ordered by section, so each file's passages form one run.
        var best: [Match] = []
        var runFile = sectionIDs[0] >> IndexSchema.sectionBits
        var runBest = Match(row: 0, similarity: similarities[0], score: similarities[0])
        var runLength = 1
        for row in 1..<count {
            let file = sectionIDs[row] >> IndexSchema.sectionBits
            if file != runFile {
                best.append(scored(runBest, passages: runLength))
                runFile = file
                runBest = Match(row: row, similarity: similarities[row], score: similarities[row])
                runLength = 1
            } else {
                runLength += 1
                if similarities[row] > runBest.similarity {
                    runBest = Match(
                        row: row, similarity: similarities[row], score: similarities[row])
                }
            }
        }
        best.append(scored(runBest, passages: runLength))
        return Self.nearest(best, limit: limit)
    }

    /// The `limit` best-scored of `matches`, best first (ties: the earlier row).
    static func nearest(_ matches: [Match], limit: Int) -> [Match] {
        ShortList.first(limit, of: matches) { a, b in
            (a.score, b.row) > (b.score, a.row)
        }
    }
}

extension VectorTable {
    /// The query's dot product with every stored vector, times its scale (a C kernel for the
    /// CPU at hand: CVectorKernels).
    func dotProducts(_ query: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        query.withUnsafeBufferPointer { q in
            out.withUnsafeMutableBufferPointer { o in
                guard let qb = q.baseAddress, let vb = values.baseAddress,
                    let sb = scales.baseAddress, let ob = o.baseAddress
                else { return }
                notes_int8_dots(
                    notes_kernel_level(), qb, vb, sb, count, Int32(dimensions), ob)
            }
        }
        return out
    }
}

extension NoteIndex {
    /// Coverage as a search (and ``semanticCoverage()``) reports it, from the vector table
    /// (kept by a long-lived process: ``vectors(_:)``).
    /// `found` gets the table and the model that made it as soon as they are read, before
    /// the files are counted: a search starts finding the nearest passages meanwhile.
    /// `filesWithPassages`: files with text that have any passage (a search by meaning can
    /// find them, covered or not).
    func storedVectors(found: (VectorTable, _ model: String?) -> Void) throws(NotesError)
        -> (coverage: SemanticCoverage, filesWithPassages: Int)
    {
        do {
            return try pool.read { db in
                let table = try vectors(db)
                let model = try String.fetchOne(
                    db, sql: "SELECT value FROM meta WHERE key = 'embedding_model'")
                found(table, model)
                // Counted again only after a change: a long-lived process keeps the count,
                // and the next short one reads it from the coverage file.
                let key = try LayoutSnapshot.currentToken(db).map { table.generation + " " + $0 }
                let counts: FilesWithText
                if let key, let known = coverageCache.withLock({ $0 }), known.key == key {
                    counts = known.counts
                } else if let key, let stored = CoverageFile.read(directory: directory, key: key) {
                    counts = stored
                    coverageCache.withLock { $0 = (key, counts) }
                } else {
                    counts = try Self.filesWithText(db, coveredBy: table)
                    if let key {
                        coverageCache.withLock { $0 = (key, counts) }
                        CoverageFile.write(counts, key: key, directory: directory)
                    }
                }
                return (
                    SemanticCoverage(
                        embeddedFiles: counts.covered, files: counts.files, model: model,
                        passages: counts.passages),
                    counts.withPassages
                )
            }
        } catch {
            throw wrap(error)
        }
    }

    /// The vector table, read again only when another process changed it: mapped from the
    /// vector file when that holds the current generation, otherwise read from the database
    /// (and the file rewritten for the next process).
    func vectors(_ db: Database) throws -> VectorTable {
        let generation = try VectorTable.generation(db)
        if let cached = vectorCache.withLock({ $0 }), cached.generation == generation {
            return cached
        }
        if let mapped = VectorFile.read(directory: directory, generation: generation) {
            vectorCache.withLock { $0 = mapped }
            return mapped
        }
        let table = try VectorTable.load(db)
        VectorFile.write(table, directory: directory)
        vectorCache.withLock { $0 = table }
        return table
    }
}

extension NoteIndex {
    /// The notes whose passages are, on average, nearest those of the note at `path` (itself
    /// excluded): candidates for links. Each note is its passages' mean vector.
    public func related(to path: String, limit: Int = 10, hideProtected: Bool = false)
        throws(NotesError) -> RelatedNotes
    {
        let policy = workspace.config.policy
        let coverage = try semanticCoverage()
        do {
            return try pool.read { db in
                guard
                    let fileID = try Int64.fetchOne(
                        db, sql: "SELECT id FROM files WHERE path = ? AND indexed = 1",
                        arguments: [path])
                else {
                    let absolute = workspace.absolutePath(path)
                    if FileSystem.exists(absolute) && !FileSystem.isDirectory(absolute) {
                        throw NotesError(
                            .invalidArgument,
                            "\(path) has no related notes: they are found among the notes search indexes, \(indexedFiles)",
                            hint: "related takes a note's path")
                    }
                    throw NotesError(
                        .notFound, "\(path) is not an indexed note",
                        hint: "check the path: a Markdown or text file of the workspace")
                }
                let table = try vectors(db)
                let means = table.meanPerFile()
                guard let own = means[fileID] else {
                    // A note of front matter alone, or an empty one, never gets vectors.
                    let sections =
                        try Int.fetchOne(
                            db, sql: "SELECT section_count FROM files WHERE id = ?",
                            arguments: [fileID]) ?? 0
                    if sections == 0 {
                        throw NotesError(
                            .invalidArgument,
                            "\(path) has no text to compare (it is empty or holds front matter alone)",
                            hint: "related notes are found by what a note says: add some text to it"
                        )
                    }
                    throw NotesError(
                        .invalidArgument, "\(path) has no passage vectors yet",
                        hint:
                            "run `notes index` to embed the workspace; `notes model` shows whether the model is installed",
                        cause: .notEmbeddedYet)
                }
                var scored = means.filter { $0.key != fileID }.map {
                    (file: $0.key, similarity: zip(own, $0.value).reduce(0) { $0 + $1.0 * $1.1 })
                }
                scored.sort { ($0.similarity, $1.file) > ($1.similarity, $0.file) }
                var hidden = Set<Int64>()
                if hideProtected { hidden = try HiddenFiles.ids(db, policy: policy) ?? [] }
                var related: [RelatedNote] = []
                for candidate in scored where !hidden.contains(candidate.file) {
                    guard
                        let row = try Row.fetchOne(
                            db, sql: "SELECT path, title FROM files WHERE id = ?",
                            arguments: [candidate.file])
                    else { continue }
                    if hideProtected && policy.isProtected(row["path"]) { continue }
                    related.append(
                        RelatedNote(
                            path: row["path"], title: row["title"],
                            similarity: (Double(candidate.similarity) * 1000).rounded() / 1000))
                    if related.count >= limit { break }
                }
                return RelatedNotes(path: path, related: related, semantic: coverage)
            }
        } catch let error as NotesError {
            throw error
        } catch {
            throw wrap(error)
        }
    }
}

extension VectorTable {
    /// Each file's passages' mean vector, normalised.
    func meanPerFile() -> [Int64: [Float]] {
        var sums: [Int64: [Float]] = [:]
        for row in 0..<count {
            let file = sectionIDs[row] >> IndexSchema.sectionBits
            var sum = sums[file] ?? [Float](repeating: 0, count: dimensions)
            let scale = scales[row]
            for i in 0..<dimensions { sum[i] += Float(values[row * dimensions + i]) * scale }
            sums[file] = sum
        }
        return sums.mapValues { sum in
            let norm = sum.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return norm > 0 ? sum.map { $0 / norm } : sum
        }
    }
}
