import Foundation
import NotesCore

/// The vector table as one file beside the database (`index.vectors`), so that a short
/// command maps the passages' vectors instead of reading and copying every `chunks` row.
///
/// It is a cache of the `chunks` table and nothing more: its header names the
/// `chunks_generation` it was written from, and a reader whose database has another
/// generation ignores it (and the next load rewrites it). It is replaced whole, by a new file
/// renamed over it, never written in place, so a mapping another process holds stays valid.
///
/// Layout (little-endian): a 64-byte header — `NOTESVEC`, version (UInt32), dimensions
/// (UInt32), passages (UInt64), the generation (32 bytes, zero-padded) — then the columns in
/// order: section ids (Int64), section digests (Int64), lines (Int32), scales (Float32), and
/// the vectors (Int8, `dimensions` per passage).
enum VectorFile {
    static let fileName = "index.vectors"
    static let magic = Array("NOTESVEC".utf8)
    static let version: UInt32 = 1
    static let headerSize = 64
    static let generationBytes = 32

    static func byteCount(passages: Int, dimensions: Int) -> Int {
        headerSize + passages * (8 + 8 + 4 + 4) + passages * dimensions
    }

    /// The table stored in `directory` for `generation`, or nil when there is none, it is
    /// for another generation, or it cannot be read whole.
    static func read(directory: String, generation: String) -> VectorTable? {
        guard !generation.isEmpty else { return nil }
        let fd = open(directory + "/" + fileName, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(),
            Int(info.st_size) >= headerSize
        else { return nil }
        let size = Int(info.st_size)
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else {
            return nil
        }
        let base = UnsafeRawPointer(map)
        func unmap() { munmap(map, size) }
        let header = UnsafeRawBufferPointer(start: base, count: headerSize)
        let dimensions = Int(
            UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 12, as: UInt32.self)))
        let count = Int(
            UInt64(littleEndian: header.loadUnaligned(fromByteOffset: 16, as: UInt64.self)))
        let stored = header[24..<(24 + generationBytes)].prefix { $0 != 0 }
        guard Array(header[0..<8]) == magic,
            UInt32(littleEndian: header.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                == version,
            String(decoding: stored, as: UTF8.self) == generation,
            dimensions > 0, dimensions <= 65_536, count > 0,
            count <= (size - headerSize) / (24 + dimensions),
            size == byteCount(passages: count, dimensions: dimensions)
        else {
            unmap()
            return nil
        }
        func column<T>(_ type: T.Type, at offset: Int, _ length: Int) -> UnsafeBufferPointer<T> {
            UnsafeBufferPointer(
                start: (base + offset).assumingMemoryBound(to: T.self), count: length)
        }
        var offset = headerSize
        let sectionIDs = column(Int64.self, at: offset, count)
        offset += 8 * count
        let digests = column(Int64.self, at: offset, count)
        offset += 8 * count
        let lines = column(Int32.self, at: offset, count)
        offset += 4 * count
        let scales = column(Float.self, at: offset, count)
        offset += 4 * count
        let values = column(Int8.self, at: offset, count * dimensions)
        let storage = VectorTable.Storage(
            count: count, sectionIDs: sectionIDs, digests: digests, lines: lines,
            scales: scales, values: values, release: unmap)
        return VectorTable(generation: generation, dimensions: dimensions, storage: storage)
    }

    /// Writes `table` to `directory` (a new file renamed over the old one), or removes the
    /// file when the table is empty. Best effort: a folder that cannot take it leaves the
    /// readers loading from the database.
    static func write(_ table: VectorTable, directory: String) {
        if table.count == 0 {
            // No vectors (a rebuild, every passage dropped): no file either, rather than an
            // older generation's kept for nothing.
            unlink(directory + "/" + fileName)
            return
        }
        guard table.dimensions > 0, !table.generation.isEmpty,
            table.generation.utf8.count <= generationBytes,
            UInt32(1).littleEndian == 1
        else { return }
        let size = byteCount(passages: table.count, dimensions: table.dimensions)
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { out in
            magic.withUnsafeBytes { out.copyMemory(from: $0) }
            out.storeBytes(of: version.littleEndian, toByteOffset: 8, as: UInt32.self)
            out.storeBytes(
                of: UInt32(table.dimensions).littleEndian, toByteOffset: 12, as: UInt32.self)
            out.storeBytes(of: UInt64(table.count).littleEndian, toByteOffset: 16, as: UInt64.self)
            for (i, byte) in table.generation.utf8.enumerated() { out[24 + i] = byte }
            var offset = headerSize
            func append<T>(_ column: UnsafeBufferPointer<T>) {
                let raw = UnsafeRawBufferPointer(column)
                UnsafeMutableRawBufferPointer(rebasing: out[offset..<(offset + raw.count)])
                    .copyMemory(from: raw)
                offset += raw.count
            }
            append(table.sectionIDs)
            append(table.digests)
            append(table.lines)
            append(table.scales)
            append(table.values)
        }
        // The data reaches the disk before the name does: a crash never leaves a file whose
        // header promises vectors its pages do not hold.
        bytes.withUnsafeBytes {
            CacheFile.replace(fileName, in: directory, with: $0, syncing: true)
        }
    }
}
