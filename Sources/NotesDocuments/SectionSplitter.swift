import Foundation
import NotesCore

/// Cuts line-aligned text into sections of a few KB at blank lines, so that a hit in a
/// 1 MB book points at its place and snippets stay cheap (docs/spec.md §3.2).
enum SectionSplitter {
    /// Aim for sections of about this many bytes (cut at the next blank line).
    static let targetBytes = 8 * 1024
    /// Cut even without a blank line once a section reaches this size.
    static let hardLimitBytes = 16 * 1024

    /// Splits `lines` (line k is file line `firstLine + k`) into chunks titled `heading`.
    /// Chunks with no visible text are dropped unless `keepEmpty`.
    static func split(
        lines: ArraySlice<String>, firstLine: Int, heading: String, level: Int, keepEmpty: Bool
    ) -> [DocumentSection] {
        var sections: [DocumentSection] = []
        var chunkStart = lines.startIndex
        var bytes = 0
        var hasText = false
        func flush(upTo end: Int) {
            guard end > chunkStart else { return }
            if hasText || (keepEmpty && sections.isEmpty) {
                let text = joinLines(lines[chunkStart..<end])
                sections.append(
                    DocumentSection(
                        heading: heading, level: level,
                        line: firstLine + (chunkStart - lines.startIndex), text: text,
                        lineAligned: true, isContinuation: chunkStart != lines.startIndex))
            }
            chunkStart = end
            bytes = 0
            hasText = false
        }
        for index in lines.indices {
            let line = lines[index]
            let blank = line.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            if (blank && bytes >= targetBytes) || bytes >= hardLimitBytes { flush(upTo: index) }
            bytes += line.utf8.count + 1
            if !blank { hasText = true }
        }
        flush(upTo: lines.endIndex)
        if sections.isEmpty && keepEmpty {
            sections.append(
                DocumentSection(
                    heading: heading, level: level, line: firstLine, text: "", lineAligned: true))
        }
        return sections
    }

    /// `lines.joined(separator: "\n")` with the storage sized once (the generic `joined`
    /// was a tenth of indexing small notes).
    static func joinLines(_ lines: ArraySlice<String>) -> String {
        guard lines.count > 1 else { return lines.first ?? "" }
        var capacity = lines.count - 1
        for line in lines { capacity += line.utf8.count }
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var at = 0
            for index in lines.indices {
                if index != lines.startIndex {
                    buffer[at] = 0x0A
                    at += 1
                }
                let line = lines[index].utf8
                if let copied = line.withContiguousStorageIfAvailable({ bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    (buffer.baseAddress! + at).initialize(from: base, count: bytes.count)
                    return bytes.count
                }) {
                    at += copied
                } else {
                    for byte in line {
                        buffer[at] = byte
                        at += 1
                    }
                }
            }
            return at
        }
    }
}
