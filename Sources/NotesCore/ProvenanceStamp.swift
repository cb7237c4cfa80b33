/// Writes the provenance keys into a Markdown file's front matter by editing only their
/// lines (docs/spec.md §3.1): every other byte of the person's YAML (keys, order, comments,
/// quoting, flow lists, blank lines, CRLF, BOM) and the whole body stay as they were.
///
/// The result is verified by parsing it again: if the front matter is malformed, uses a
/// form a line edit cannot handle (a flow mapping, a multi-line provenance value, duplicate
/// keys), or anything besides the provenance would change, nothing is stamped.
public enum ProvenanceStamp {
    /// The four keys, in the order new lines are added.
    public static let keys = ["created_by", "created_at", "last_modified_by", "last_modified_at"]

    /// The outcome of stamping.
    public enum Outcome: Equatable, Sendable {
        case stamped([UInt8])
        /// The bytes are returned unchanged, with the reason.
        case unchanged(String)

        /// The bytes to write either way.
        public func bytes(or original: [UInt8]) -> [UInt8] {
            if case .stamped(let bytes) = self { return bytes }
            return original
        }
    }

    /// Sets `values` (key → value text, keys from ``keys``) in `bytes`. A file without front
    /// matter gets a new block only when `addBlock` is true.
    public static func apply(
        _ values: [(key: String, value: String)], to bytes: [UInt8], addBlock: Bool
    ) -> Outcome {
        let newline: [UInt8] = usesCRLF(bytes) ? [0x0D, 0x0A] : [0x0A]
        switch FrontMatterBlock.split(bytes) {
        case .unterminated:
            return .unchanged("front matter has no closing '---'")
        case .none:
            guard addBlock else { return .unchanged("file has no front matter") }
            let bom: [UInt8] = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? [0xEF, 0xBB, 0xBF] : []
            var block = bom + Array("---".utf8) + newline
            for (key, value) in values { block += Array("\(key): \(value)".utf8) + newline }
            block += Array("---".utf8) + newline
            return .stamped(block + bytes.dropFirst(bom.count))
        case .present(let block):
            let original: FrontMatter
            do { original = try FrontMatter.parse(bytes[block.yaml]) } catch {
                return .unchanged("front matter is not valid YAML")
            }
            var result = Array(bytes[..<block.yaml.lowerBound])
            var yaml = Array(bytes[block.yaml])
            var missing: [(String, String)] = []
            for (key, value) in values {
                let found = keyLines(key, in: yaml)
                if found.count > 1 { return .unchanged("front matter repeats '\(key)'") }
                if let line = found.first {
                    yaml.replaceSubrange(
                        line.valueRange, with: Array(" \(value)".utf8) + line.comment)
                } else {
                    missing.append((key, value))
                }
            }
            if !missing.isEmpty {
                if let last = yaml.last, last != 0x0A { yaml += newline }
                for (key, value) in missing { yaml += Array("\(key): \(value)".utf8) + newline }
            }
            result += yaml
            result += bytes[block.yaml.upperBound...]
            return verify(
                result, original: original, body: bytes[block.bodyOffset...], values: values)
        }
    }

    /// Checks that only the provenance changed and that it now reads as requested.
    private static func verify(
        _ stamped: [UInt8], original: FrontMatter, body: ArraySlice<UInt8>,
        values: [(key: String, value: String)]
    ) -> Outcome {
        guard case .present(let block) = FrontMatterBlock.split(stamped),
            let parsed = try? FrontMatter.parse(stamped[block.yaml])
        else {
            return .unchanged("the stamped front matter would not parse")
        }
        guard stamped[block.bodyOffset...].elementsEqual(body) else {
            return .unchanged("the body would change")
        }
        let others = { (fm: FrontMatter) in fm.fields.filter { !keys.contains($0.key) } }
        let before = others(original)
        let after = others(parsed)
        guard before.count == after.count,
            zip(before, after).allSatisfy({ $0.key == $1.key && $0.value == $1.value })
        else {
            return .unchanged("other front matter keys would change")
        }
        for (key, value) in values where parsed[key] != .scalar(value) {
            return .unchanged("'\(key)' is written in a form a line edit cannot change")
        }
        return .stamped(stamped)
    }

    /// A top-level `key:` line: where its value starts and ends, and a trailing comment.
    struct KeyLine {
        var valueRange: Range<Int>
        var comment: [UInt8]
    }

    static func keyLines(_ key: String, in yaml: [UInt8]) -> [KeyLine] {
        let keyBytes = Array(key.utf8)
        var found: [KeyLine] = []
        var start = 0
        while start < yaml.count {
            var end = start
            while end < yaml.count, yaml[end] != 0x0A { end += 1 }
            var contentEnd = end
            if contentEnd > start, yaml[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            if yaml[start..<contentEnd].starts(with: keyBytes) {
                var colon = start + keyBytes.count
                while colon < contentEnd, yaml[colon] == 0x20 || yaml[colon] == 0x09 { colon += 1 }
                if colon < contentEnd, yaml[colon] == UInt8(ascii: ":") {
                    let valueStart = colon + 1
                    var comment: [UInt8] = []
                    let value = yaml[valueStart..<contentEnd]
                    let firstNonSpace = value.firstIndex { $0 != 0x20 && $0 != 0x09 }
                    let quoted =
                        firstNonSpace.map {
                            yaml[$0] == UInt8(ascii: "\"") || yaml[$0] == UInt8(ascii: "'")
                        } ?? false
                    if !quoted, let hash = commentStart(value) {
                        comment = Array(yaml[hash..<contentEnd])
                    }
                    found.append(KeyLine(valueRange: valueStart..<contentEnd, comment: comment))
                }
            }
            start = end + 1
        }
        return found
    }

    /// Where a ` # comment` starts in an unquoted value, keeping the spaces before `#`.
    private static func commentStart(_ value: ArraySlice<UInt8>) -> Int? {
        var i = value.startIndex
        while i < value.endIndex {
            if value[i] == UInt8(ascii: "#"), i > value.startIndex,
                value[i - 1] == 0x20 || value[i - 1] == 0x09
            {
                var s = i
                while s > value.startIndex, value[s - 1] == 0x20 || value[s - 1] == 0x09 { s -= 1 }
                return s
            }
            i += 1
        }
        return nil
    }

    /// Whether the file's first line break is CRLF.
    public static func usesCRLF(_ bytes: [UInt8]) -> Bool {
        guard let lf = bytes.firstIndex(of: 0x0A) else { return false }
        return lf > 0 && bytes[lf - 1] == 0x0D
    }
}
