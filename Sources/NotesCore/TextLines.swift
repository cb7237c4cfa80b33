import Foundation

extension StringProtocol {
    /// The lines of the text, split at `\n` bytes, each without its line break (a trailing
    /// `\r` of CRLF or a lone `\r` at the end of a line is dropped).
    ///
    /// Swift treats `"\r\n"` as one `Character`, so `split(separator: "\n")` does not split
    /// CRLF text at all; this works on UTF-8 bytes instead. A text ending with a line break
    /// yields a last empty line, as `split(..., omittingEmptySubsequences: false)` would.
    public func lines() -> [Substring] {
        let text = Substring(self)
        let utf8 = text.utf8
        // Fast path for native strings: scan the contiguous bytes, and move indices by byte
        // offsets (constant time on UTF-8 storage) instead of stepping the view byte by byte.
        if let lines = utf8.withContiguousStorageIfAvailable({ bytes -> [Substring] in
            var result: [Substring] = []
            var lineStart = 0
            var startIndex = utf8.startIndex
            func append(upTo newline: Int) {
                var end = newline
                if end > lineStart, bytes[end - 1] == 0x0D { end -= 1 }
                let endIndex = utf8.index(startIndex, offsetBy: end - lineStart)
                result.append(Substring(utf8[startIndex..<endIndex]))
            }
            var offset = 0
            while offset < bytes.count {
                if bytes[offset] == 0x0A {
                    append(upTo: offset)
                    startIndex = utf8.index(startIndex, offsetBy: offset + 1 - lineStart)
                    lineStart = offset + 1
                }
                offset += 1
            }
            append(upTo: bytes.count)
            return result
        }) {
            return lines
        }
        var result: [Substring] = []
        var start = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == 0x0A {
                var end = index
                if end > start, utf8[utf8.index(before: end)] == 0x0D {
                    end = utf8.index(before: end)
                }
                result.append(Substring(utf8[start..<end]))
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        var end = utf8.endIndex
        if end > start, utf8[utf8.index(before: end)] == 0x0D { end = utf8.index(before: end) }
        result.append(Substring(utf8[start..<end]))
        return result
    }
}

extension Substring {
    /// The text without leading and trailing whitespace, as `trimmingCharacters(in:
    /// .whitespaces)` gives it: ASCII spaces and tabs are dropped on bytes, and Foundation
    /// is asked only when an edge is not ASCII (it was a visible cost for every heading).
    public func trimmingBlanks() -> String {
        let utf8 = self.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 0x20 || utf8[start] == 0x09 {
            start = utf8.index(after: start)
        }
        while end > start {
            let last = utf8[utf8.index(before: end)]
            guard last == 0x20 || last == 0x09 else { break }
            end = utf8.index(before: end)
        }
        let core = self[start..<end]
        if let first = core.utf8.first, let last = core.utf8.last, first >= 0x80 || last >= 0x80 {
            return core.trimmingCharacters(in: .whitespaces)
        }
        return String(core)
    }
}

/// Where lines end in text bytes, as the index counts them (DocumentParser): after a `\n`,
/// and after a `\r` no `\n` follows (CR-only line endings), so a line number means the same
/// line to `read`, to search's quotes and to the index.
public enum LineEnds {
    /// Whether the byte at `i` ends a line.
    @inlinable
    public static func endsLine(_ bytes: [UInt8], at i: Int) -> Bool {
        bytes[i] == 0x0A || (bytes[i] == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A))
    }
}
