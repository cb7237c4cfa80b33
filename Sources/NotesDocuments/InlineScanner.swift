import Foundation
import NotesCore

/// Finds inline `#tags` and `[[wikilinks]]` in a block's text (cmark leaves both as plain
/// text; code spans are blanked out before scanning).
enum InlineScanner {
    /// `#tag` words: `#` at the start or after whitespace or `(`, then letters, digits,
    /// `_`, `-`, `/` or `.`, with at least one letter (`#1` is not a tag). Dendron's dotted
    /// tags (`#role.taxonomist`) are one tag, as Obsidian's nested `#role/taxonomist` are; a
    /// sentence's full stop after a tag is not part of it.
    static func tags(in text: String) -> [String] {
        guard text.containsByte(UInt8(ascii: "#")) else { return [] }
        var result: [String] = []
        let scalars = text.unicodeScalars
        var previous: Unicode.Scalar?
        var index = scalars.startIndex
        while index < scalars.endIndex {
            let scalar = scalars[index]
            guard scalar == "#", previous.map({ $0.properties.isWhitespace || $0 == "(" }) ?? true
            else {
                previous = scalar
                index = scalars.index(after: index)
                continue
            }
            var end = scalars.index(after: index)
            var hasLetter = false
            var lastKept = end  // end of the tag without trailing "-", "/" and "."
            while end < scalars.endIndex, isTagScalar(scalars[end]) {
                let s = scalars[end]
                if s.properties.isAlphabetic { hasLetter = true }
                end = scalars.index(after: end)
                if s != "-" && s != "/" && s != "." { lastKept = end }
            }
            let start = scalars.index(after: index)
            if hasLetter && lastKept > start {
                result.append(String(scalars[start..<lastKept]))
            }
            previous = end > start ? scalars[scalars.index(before: end)] : scalar
            index = end
        }
        return result
    }

    private static func isTagScalar(_ s: Unicode.Scalar) -> Bool {
        s.properties.isAlphabetic || s.properties.numericType != nil || s == "_" || s == "-"
            || s == "/" || s == "."
    }

    /// `[[target]]` and `[[target|alias]]` on one line, with the line offset in the block.
    static func wikilinks(in text: String) -> [(target: String, alias: String?, lineOffset: Int)] {
        guard text.containsByte(UInt8(ascii: "[")) else { return [] }
        let open = UInt8(ascii: "[")
        let close = UInt8(ascii: "]")
        let newline = UInt8(0x0A)
        var result: [(String, String?, Int)] = []
        var text = text
        text.withUTF8 { bytes in
            var lineOffset = 0
            var index = 0
            while index + 1 < bytes.count {
                let byte = bytes[index]
                if byte == newline { lineOffset += 1 }
                guard byte == open, bytes[index + 1] == open else {
                    index += 1
                    continue
                }
                // The first "]]" after the opening; a link never spans lines or holds "[".
                var end = index + 2
                var innerLines = 0
                var plain = true
                while end + 1 < bytes.count, !(bytes[end] == close && bytes[end + 1] == close) {
                    if bytes[end] == newline {
                        innerLines += 1
                        plain = false
                    }
                    if bytes[end] == open { plain = false }
                    end += 1
                }
                guard end + 1 < bytes.count else { break }
                if plain {
                    let inner = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[(index + 2)..<end]),
                        as: UTF8.self)
                    let bar = inner.utf8.firstIndex(of: UInt8(ascii: "|"))
                    let target = inner[..<(bar ?? inner.endIndex)].trimmingBlanks()
                    let alias = bar.map { inner[inner.utf8.index(after: $0)...].trimmingBlanks() }
                    if !target.isEmpty {
                        result.append((target, alias.flatMap { $0.isEmpty ? nil : $0 }, lineOffset))
                    }
                    index = end + 2
                } else {
                    lineOffset += innerLines
                    index = end
                }
            }
        }
        return result
    }
}
