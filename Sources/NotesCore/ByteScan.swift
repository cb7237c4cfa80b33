import Glibc

/// Byte searches over a string's UTF-8, at `memchr` speed for native strings (the generic
/// `utf8.contains` / `reduce` step an iterator byte by byte, which showed up in profiles
/// of indexing). Inlinable, so callers in other modules get a version specialised for their
/// string type instead of the generic one.
extension StringProtocol {
    /// Whether the UTF-8 of the text contains `byte`.
    @inlinable public func containsByte(_ byte: UInt8) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ buffer -> Bool in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return false }
            return memchr(base, Int32(byte), buffer.count) != nil
        }) {
            return found
        }
        return utf8.contains(byte)
    }

    /// How many times `byte` occurs in the UTF-8 of the text.
    @inlinable public func countByte(_ byte: UInt8) -> Int {
        if let count = utf8.withContiguousStorageIfAvailable({ buffer -> Int in
            guard var cursor = buffer.baseAddress, !buffer.isEmpty else { return 0 }
            let end = cursor + buffer.count
            var count = 0
            while cursor < end, let hit = memchr(cursor, Int32(byte), end - cursor) {
                count += 1
                cursor = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) + 1
            }
            return count
        }) {
            return count
        }
        return utf8.reduce(0) { $1 == byte ? $0 + 1 : $0 }
    }
}
