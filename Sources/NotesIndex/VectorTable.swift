import Foundation
import GRDB
import NotesCore

/// The stored passage vectors, decoded for brute-force nearest-neighbour search: one dot
/// product per passage, which at the sizes a notes folder reaches (tens of thousands of
/// passages) costs a few milliseconds, needs no approximate index and is exact.
///
/// Vectors are stored as 8-bit integers with one scale per vector (a quarter of the bytes of
/// floats; cosine similarities move by about 0.001). A long-lived process keeps the decoded
/// table while `meta.chunks_generation` (renewed by every write to `chunks`) is unchanged.
struct VectorTable: Sendable {
    let generation: String
    let dimensions: Int
    let sectionIDs: [Int64]
    let digests: [Int64]
    let lines: [Int32]
    /// Row-major, `dimensions` floats per passage.
    let values: [Float]

    var count: Int { sectionIDs.count }

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

    static func decode(_ data: Data, into values: inout [Float]) -> Int? {
        guard data.count > 4 else { return nil }
        let n = data.count - 4
        let start = values.count
        values.append(contentsOf: repeatElement(0, count: n))
        data.withUnsafeBytes { raw in
            let scale = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let bytes = raw.bindMemory(to: Int8.self)
            values.withUnsafeMutableBufferPointer { out in
                for i in 0..<n { out[start + i] = Float(bytes[4 + i]) * scale }
            }
        }
        return n
    }

    static func renewGeneration(_ db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('chunks_generation', hex(randomblob(8)))")
    }

    static func generation(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'chunks_generation'") ?? ""
    }

    /// Every stored vector (current or not: a search checks the sections it keeps).
    static func load(_ db: Database) throws -> VectorTable {
        let generation = try generation(db)
        var sectionIDs: [Int64] = [], digests: [Int64] = [], lines: [Int32] = [], values: [Float] = []
        var dimensions = 0
        let expected = try Int.fetchOne(db, sql: "SELECT count(*) FROM chunks WHERE vector IS NOT NULL") ?? 0
        values.reserveCapacity(expected * 384)
        sectionIDs.reserveCapacity(expected)
        let rows = try Row.fetchCursor(db, sql: "SELECT section_id, section_digest, line, vector FROM chunks WHERE vector IS NOT NULL")
        while let row = try rows.next() {
            guard let data = row["vector"] as Data? else { continue }
            let before = values.count
            guard let n = decode(data, into: &values), dimensions == 0 || n == dimensions else {
                values.removeSubrange(before...)
                continue
            }
            dimensions = n
            sectionIDs.append(row["section_id"])
            digests.append(row["section_digest"])
            lines.append(Int32(clamping: row["line"] as Int))
        }
        return VectorTable(generation: generation, dimensions: dimensions, sectionIDs: sectionIDs, digests: digests, lines: lines, values: values)
    }

    /// One passage's match: its index in the table and its cosine similarity to the query.
    struct Match {
        let row: Int
        let similarity: Float
    }

    /// The best passage of each file, best files first (at most `limit` files).
    func bestPerFile(_ query: [Float], limit: Int) -> [Match] {
        guard dimensions > 0, query.count == dimensions else { return [] }
        var best: [Int64: Match] = [:]
        let similarities = dotProducts(query)
        for row in 0..<count {
            let sum = similarities[row]
            let file = sectionIDs[row] >> IndexSchema.sectionBits
            if let known = best[file], known.similarity >= sum { continue }
            best[file] = Match(row: row, similarity: sum)
        }
        return Array(best.values.sorted { ($0.similarity, $1.row) > ($1.similarity, $0.row) }.prefix(limit))
    }
}

extension VectorTable {
    /// The query's dot product with every stored vector, eight lanes at a time.
    func dotProducts(_ query: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        let lanes = dimensions / 8 * 8
        query.withUnsafeBufferPointer { q in
            values.withUnsafeBufferPointer { v in
                out.withUnsafeMutableBufferPointer { o in
                    guard let qb = q.baseAddress, let vb = v.baseAddress else { return }
                    for row in 0..<count {
                        let base = vb + row * dimensions
                        var acc = SIMD8<Float>()
                        var i = 0
                        while i < lanes {
                            let a = UnsafeRawPointer(qb + i).loadUnaligned(as: SIMD8<Float>.self)
                            let b = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<Float>.self)
                            acc += a * b
                            i += 8
                        }
                        var sum = acc.sum()
                        while i < dimensions { sum += qb[i] * base[i]; i += 1 }
                        o[row] = sum
                    }
                }
            }
        }
        return out
    }
}

extension NoteIndex {
    /// Coverage as a search reports it, from the vector table a long-lived process keeps
    /// (``semanticCoverage()`` counts in SQL, a scan of every passage row).
    func quickCoverage() throws(NotesError) -> SemanticCoverage {
        do {
            return try pool.read { db in
                let table = try vectors(db)
                let files = try Int.fetchOne(db, sql: "SELECT count(*) FROM files WHERE indexed = 1") ?? 0
                let model = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'embedding_model'")
                let embedded = Set(table.sectionIDs.map { $0 >> IndexSchema.sectionBits }).count
                return SemanticCoverage(embeddedFiles: min(files, embedded), files: files, model: model, passages: table.count)
            }
        } catch {
            throw Self.wrap(error)
        }
    }

    /// The vector table, read again only when another process changed it.
    func vectors(_ db: Database) throws -> VectorTable {
        let generation = try VectorTable.generation(db)
        if let cached = vectorCache.withLock({ $0 }), cached.generation == generation { return cached }
        let table = try VectorTable.load(db)
        vectorCache.withLock { $0 = table }
        return table
    }
}

/// A note found near another in meaning (``NoteIndex/related(to:limit:hideProtected:)``).
public struct RelatedNote: Sendable, Codable {
    public var path: String
    public var title: String
    /// Cosine similarity of the two notes' mean passage vectors (1 = the same meaning).
    public var similarity: Double
}

/// The notes nearest one note in meaning.
public struct RelatedNotes: Sendable, Codable {
    public var path: String
    public var related: [RelatedNote]
    /// How many files have vectors: a file without them cannot be found.
    public var semantic: SemanticCoverage
}

extension NoteIndex {
    /// The notes whose passages are, on average, nearest those of the note at `path` (itself
    /// excluded): candidates for links. Each note is its passages' mean vector.
    public func related(to path: String, limit: Int = 10, hideProtected: Bool = false) throws(NotesError) -> RelatedNotes {
        let policy = workspace.config.policy
        let coverage = try semanticCoverage()
        do {
            return try pool.read { db in
                guard let fileID = try Int64.fetchOne(db, sql: "SELECT id FROM files WHERE path = ? AND indexed = 1", arguments: [path]) else {
                    throw NotesError(.notFound, "\(path) is not an indexed note", hint: "check the path (it is relative to the workspace root)")
                }
                let table = try vectors(db)
                let means = table.meanPerFile()
                guard let own = means[fileID] else {
                    throw NotesError(.invalidArgument, "\(path) has no passage vectors yet",
                                     hint: "run `notes index` to embed the workspace (`notes model` shows whether the model is installed)")
                }
                var scored = means.filter { $0.key != fileID }.map { (file: $0.key, similarity: zip(own, $0.value).reduce(0) { $0 + $1.0 * $1.1 }) }
                scored.sort { ($0.similarity, $1.file) > ($1.similarity, $0.file) }
                var hidden = Set<Int64>()
                if hideProtected { hidden = try HiddenFiles.ids(db, policy: policy) ?? [] }
                var related: [RelatedNote] = []
                for candidate in scored where !hidden.contains(candidate.file) {
                    guard let row = try Row.fetchOne(db, sql: "SELECT path, title FROM files WHERE id = ?", arguments: [candidate.file]) else { continue }
                    if hideProtected && policy.isProtected(row["path"]) { continue }
                    related.append(RelatedNote(path: row["path"], title: row["title"], similarity: (Double(candidate.similarity) * 1000).rounded() / 1000))
                    if related.count >= limit { break }
                }
                return RelatedNotes(path: path, related: related, semantic: coverage)
            }
        } catch let error as NotesError {
            throw error
        } catch {
            throw Self.wrap(error)
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
            for i in 0..<dimensions { sum[i] += values[row * dimensions + i] }
            sums[file] = sum
        }
        return sums.mapValues { sum in
            let norm = sum.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return norm > 0 ? sum.map { $0 / norm } : sum
        }
    }
}
