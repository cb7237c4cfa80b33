/// Front matter in its common plain shape, read without Yams.
///
/// Nearly every note's front matter is a handful of `key: value` lines with plain or simply
/// quoted scalars and short lists (what agents write, what `gen-workspace.py` and Dendron
/// write). Yams spent a large share of parsing a typical note composing nodes for that,
/// so this reader takes the shape below on bytes and answers nil
/// for anything else, which Yams then reads as before. Values are the written text, as the
/// basic resolver Yams runs with keeps them. `PlainFrontMatterTests` compares the two readers
/// on random YAML-like text.
///
/// The shape:
/// - lines `key: value` at column 0; a key is ASCII letters, digits, `_`, `-`, `.` and
///   starts with a letter, digit or `_`; no key twice;
/// - a value is a plain scalar (no indicator first, no `: ` or ` #` inside), a one-line
///   `'single'` (with `''`) or `"double"` (without `\`) quoted scalar, or a one-line flow
///   list `[a, 'b', "c"]` of such scalars;
/// - `key:` with nothing after it, then optionally `- item` lines (all at one indentation);
/// - blank lines and whole-line `#` comments anywhere;
/// - LF or CRLF line ends; no tabs, control characters, invalid UTF-8, BOM, or the
///   Unicode characters YAML 1.1 treats as line breaks.
extension FrontMatter {
    static func parsePlain(_ yaml: [UInt8]) -> FrontMatter? {
        guard PlainYAMLReader.charactersAreSafe(yaml) else { return nil }
        return yaml.withUnsafeBufferPointer { PlainYAMLReader(bytes: $0).read() }
    }
}

private struct PlainYAMLReader {
    let bytes: UnsafeBufferPointer<UInt8>

    static let space = UInt8(ascii: " "), colon = UInt8(ascii: ":"), hash = UInt8(ascii: "#"),
        dash = UInt8(ascii: "-")
    static let singleQuote = UInt8(ascii: "'"), doubleQuote = UInt8(ascii: "\""),
        backslash = UInt8(ascii: "\\")
    static let comma = UInt8(ascii: ","), openBracket = UInt8(ascii: "["),
        closeBracket = UInt8(ascii: "]")

    /// Bytes a plain scalar may not start with: YAML's indicators and quotes, and, to stay
    /// on the safe side, `.` (`...` ends a document), `~` (null), `=` and `<` (YAML 1.1
    /// value and merge keys).
    static let indicators: Set<UInt8> = Set("-?:,[]{}#&*!|>'\"%@`.~=<".utf8)

    /// Printable, line-break-free UTF-8 (tabs and `\r` only as part of CRLF are refused
    /// elsewhere; here: controls, DEL, C1 controls with NEL, LS, PS, BOM, U+FFFE/F).
    static func charactersAreSafe(_ bytes: [UInt8]) -> Bool {
        var ascii = true
        for (i, b) in bytes.enumerated() {
            if b >= 0x80 {
                ascii = false
                continue
            }
            if b == 0x0A { continue }
            if b == 0x0D, i + 1 < bytes.count, bytes[i + 1] == 0x0A { continue }
            if b < 0x20 || b == 0x7F { return false }
        }
        if ascii { return true }
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                let v = scalar.value
                if (0x80...0x9F).contains(v) || v == 0x2028 || v == 0x2029 || v == 0xFEFF
                    || v == 0xFFFE || v == 0xFFFF
                {
                    return false
                }
            case .emptyInput:
                return true
            case .error:
                return false
            }
        }
    }

    func read() -> FrontMatter? {
        var result = FrontMatter()
        var keys = Set<String>()
        var openKey: String?  // `key:` with nothing after it, maybe followed by items
        var items: [String] = []
        var itemIndent: Int?

        func closeOpenKey() {
            guard let key = openKey else { return }
            result.fields.append((key, items.isEmpty ? .scalar("") : .list(items)))
            openKey = nil
            items = []
            itemIndent = nil
        }

        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
            let next = lineEnd + 1
            if lineEnd > lineStart && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            defer { lineStart = next }

            var start = lineStart
            while start < lineEnd && bytes[start] == Self.space { start += 1 }
            let indent = start - lineStart
            if start == lineEnd || bytes[start] == Self.hash { continue }  // blank or comment

            if bytes[start] == Self.dash && (start + 1 == lineEnd || bytes[start + 1] == Self.space)
            {
                // `- item` of the open key's list.
                guard openKey != nil else { return nil }
                if let expected = itemIndent, expected != indent { return nil }
                itemIndent = indent
                guard let item = scalar(from: start + 1, to: lineEnd, inFlow: false),
                    item.end == lineEnd
                else { return nil }
                items.append(item.text)
                continue
            }
            guard indent == 0 else { return nil }  // nesting or a continued scalar
            closeOpenKey()

            // The key.
            var colonAt = start
            while colonAt < lineEnd && bytes[colonAt] != Self.colon { colonAt += 1 }
            guard colonAt < lineEnd, colonAt > start,
                colonAt + 1 == lineEnd || bytes[colonAt + 1] == Self.space,
                isKey(start..<colonAt)
            else { return nil }
            let key = text(start..<colonAt)
            guard keys.insert(key).inserted else { return nil }

            // The value.
            var valueStart = colonAt + 1
            while valueStart < lineEnd && bytes[valueStart] == Self.space { valueStart += 1 }
            if valueStart == lineEnd {
                openKey = key
                continue
            }
            if bytes[valueStart] == Self.openBracket {
                guard let list = flowList(from: valueStart, to: lineEnd) else { return nil }
                result.fields.append((key, .list(list)))
            } else {
                guard let value = scalar(from: valueStart, to: lineEnd, inFlow: false),
                    value.end == lineEnd
                else { return nil }
                result.fields.append((key, .scalar(value.text)))
            }
        }
        closeOpenKey()
        return result
    }

    private func isKey(_ range: Range<Int>) -> Bool {
        for i in range {
            let b = bytes[i]
            let letterOrDigit =
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if letterOrDigit || b == UInt8(ascii: "_") { continue }
            if i > range.lowerBound && (b == Self.dash || b == UInt8(ascii: ".")) { continue }
            return false
        }
        return true
    }

    private func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// A scalar starting at or after `from` (leading spaces skipped); `end` is where what
    /// follows it starts (trailing spaces skipped). In a flow list a plain scalar stops at
    /// `,` or `]`.
    private func scalar(from: Int, to limit: Int, inFlow: Bool) -> (text: String, end: Int)? {
        var i = from
        while i < limit && bytes[i] == Self.space { i += 1 }
        guard i < limit else { return nil }
        let first = bytes[i]
        if first == Self.singleQuote || first == Self.doubleQuote {
            var out: [UInt8] = []
            var j = i + 1
            while true {
                guard j < limit else { return nil }  // not closed on this line
                let b = bytes[j]
                if first == Self.doubleQuote && b == Self.backslash { return nil }
                if b == first {
                    if first == Self.singleQuote && j + 1 < limit
                        && bytes[j + 1] == Self.singleQuote
                    {
                        out.append(b)
                        j += 2
                        continue
                    }
                    break
                }
                out.append(b)
                j += 1
            }
            j += 1
            while j < limit && bytes[j] == Self.space { j += 1 }
            return (String(decoding: out, as: UTF8.self), j)
        }
        guard !Self.indicators.contains(first) else { return nil }
        var j = i
        var lastKept = i
        while j < limit {
            let b = bytes[j]
            if inFlow && (b == Self.comma || b == Self.closeBracket) { break }
            if inFlow
                && (b == Self.openBracket || b == UInt8(ascii: "{") || b == UInt8(ascii: "}")
                    || b == Self.colon || b == Self.hash)
            {
                return nil
            }
            if b == Self.colon && (j + 1 == limit || bytes[j + 1] == Self.space) { return nil }
            if b == Self.hash && bytes[j - 1] == Self.space { return nil }
            j += 1
            if b != Self.space { lastKept = j }
        }
        return (text(i..<lastKept), j)
    }

    /// `[a, 'b', "c"]` filling the rest of the line.
    private func flowList(from open: Int, to limit: Int) -> [String]? {
        var end = limit
        while end > open && bytes[end - 1] == Self.space { end -= 1 }
        guard end - open >= 2, bytes[end - 1] == Self.closeBracket else { return nil }
        let innerEnd = end - 1
        var i = open + 1
        while i < innerEnd && bytes[i] == Self.space { i += 1 }
        if i == innerEnd { return [] }
        var list: [String] = []
        while true {
            guard let item = scalar(from: i, to: innerEnd, inFlow: true) else { return nil }
            list.append(item.text)
            if item.end == innerEnd { return list }
            guard bytes[item.end] == Self.comma else { return nil }
            i = item.end + 1
        }
    }
}
