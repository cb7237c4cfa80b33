import Foundation

/// Finds inline `#tags` and `[[wikilinks]]` in a block's text (cmark leaves both as plain
/// text; code spans are blanked out before scanning).
enum InlineScanner {
    /// `#tag` words: `#` at the start or after whitespace or `(`, then letters, digits,
    /// `_`, `-` or `/`, with at least one letter (`#1` is not a tag).
    static func tags(in text: String) -> [String] {
        var result: [String] = []
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "#", i == 0 || scalars[i - 1].properties.isWhitespace || scalars[i - 1] == "(" {
                var j = i + 1
                var hasLetter = false
                while j < scalars.count, isTagScalar(scalars[j]) {
                    if scalars[j].properties.isAlphabetic { hasLetter = true }
                    j += 1
                }
                var end = j
                while end > i + 1, scalars[end - 1] == "-" || scalars[end - 1] == "/" { end -= 1 }
                if hasLetter && end > i + 1 {
                    var tag = String.UnicodeScalarView()
                    tag.append(contentsOf: scalars[(i + 1)..<end])
                    result.append(String(tag))
                }
                i = max(j, i + 1)
                continue
            }
            i += 1
        }
        return result
    }

    private static func isTagScalar(_ s: Unicode.Scalar) -> Bool {
        s.properties.isAlphabetic || s.properties.numericType != nil || s == "_" || s == "-" || s == "/"
    }

    /// `[[target]]` and `[[target|alias]]` on one line, with the line offset in the block.
    static func wikilinks(in text: String) -> [(target: String, alias: String?, lineOffset: Int)] {
        var result: [(String, String?, Int)] = []
        var lineOffset = 0
        var rest = Substring(text)
        while let open = rest.range(of: "[[") {
            lineOffset += rest[rest.startIndex..<open.lowerBound].reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
            let after = rest[open.upperBound...]
            guard let close = after.range(of: "]]") else { break }
            let inner = after[after.startIndex..<close.lowerBound]
            if !inner.contains("\n") && !inner.contains("[") {
                let parts = inner.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
                let target = parts[0].trimmingCharacters(in: .whitespaces)
                let alias = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : nil
                if !target.isEmpty { result.append((target, alias.flatMap { $0.isEmpty ? nil : $0 }, lineOffset)) }
                rest = after[close.upperBound...]
            } else {
                lineOffset += inner.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
                rest = after[close.lowerBound...]
            }
        }
        return result
    }
}

/// Plain text of an HTML block: tags and comments removed, entities left as written.
enum HTMLText {
    static func strip(_ html: String) -> String {
        var out = ""
        var inTag = false
        var inComment = false
        let scalars = Array(html.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let s = scalars[i]
            if inComment {
                if s == "-", i + 2 < scalars.count, scalars[i + 1] == "-", scalars[i + 2] == ">" { inComment = false; i += 3; continue }
                if s == "\n" { out.unicodeScalars.append(s) }
            } else if inTag {
                if s == ">" { inTag = false; out += " " }
                if s == "\n" { out.unicodeScalars.append(s) }
            } else if s == "<" {
                if i + 3 < scalars.count, scalars[i + 1] == "!", scalars[i + 2] == "-", scalars[i + 3] == "-" { inComment = true; i += 4; continue }
                inTag = true
            } else {
                out.unicodeScalars.append(s)
            }
            i += 1
        }
        return out
    }
}
