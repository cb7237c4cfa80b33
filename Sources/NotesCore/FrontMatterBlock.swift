import Foundation
import Yams

/// Where a Markdown file's YAML front matter is (docs/spec.md §3.1): a first line `---` (after an
/// optional UTF-8 BOM), then YAML, then a closing `---` or `...` line. CRLF is accepted.
///
/// Works on bytes so offsets are exact for later byte-preserving edits.
public struct FrontMatterBlock: Equatable, Sendable {
    /// Byte range of the YAML text between the delimiters.
    public var yaml: Range<Int>
    /// Byte offset where the body starts (after the closing delimiter's line break).
    public var bodyOffset: Int
    /// Number of lines the block occupies; the body's first line is `lineCount + 1`.
    public var lineCount: Int

    /// The outcome of looking for front matter.
    public enum Split: Equatable, Sendable {
        case none
        case present(FrontMatterBlock)
        /// An opening `---` with no closing line: the file is treated as body text.
        case unterminated
    }

    /// Finds the front matter block at the start of `bytes`.
    public static func split(_ bytes: [UInt8]) -> Split {
        var i = 0
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        guard let firstEnd = lineEnd(bytes, from: i),
            isDelimiter(bytes, i, firstEnd.contentEnd, opening: true)
        else {
            return .none
        }
        let yamlStart = firstEnd.next
        var lineStart = yamlStart
        var lines = 1
        while lineStart < bytes.count {
            guard let end = lineEnd(bytes, from: lineStart) else { break }
            lines += 1
            if isDelimiter(bytes, lineStart, end.contentEnd, opening: false) {
                return .present(
                    FrontMatterBlock(
                        yaml: yamlStart..<lineStart, bodyOffset: end.next, lineCount: lines))
            }
            lineStart = end.next
        }
        return .unterminated
    }

    /// The end of the line starting at `from`: where its content ends and the next begins.
    private static func lineEnd(_ bytes: [UInt8], from: Int) -> (contentEnd: Int, next: Int)? {
        guard from < bytes.count else { return nil }
        var j = from
        while j < bytes.count {
            if bytes[j] == 0x0A { return (j > from && bytes[j - 1] == 0x0D ? j - 1 : j, j + 1) }
            j += 1
        }
        return (bytes.count, bytes.count)
    }

    private static func isDelimiter(_ bytes: [UInt8], _ start: Int, _ end: Int, opening: Bool)
        -> Bool
    {
        guard end - start >= 3 else { return false }
        let dash = UInt8(ascii: "-")
        let dot = UInt8(ascii: ".")
        let isDashes = bytes[start] == dash && bytes[start + 1] == dash && bytes[start + 2] == dash
        let isDots =
            !opening && bytes[start] == dot && bytes[start + 1] == dot && bytes[start + 2] == dot
        guard isDashes || isDots else { return false }
        for k in (start + 3)..<end where bytes[k] != 0x20 && bytes[k] != 0x09 { return false }
        return true
    }
}
