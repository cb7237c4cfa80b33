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

/// A front-matter value as written: a scalar's text, a list of scalars, or something
/// nested (kept only as a marker; nested values are not interpreted).
public enum FrontMatterValue: Hashable, Sendable {
    case scalar(String)
    case list([String])
    case nested

    /// The value's strings (one for a scalar, each item for a list).
    public var strings: [String] {
        switch self {
        case .scalar(let s): return [s]
        case .list(let items): return items
        case .nested: return []
        }
    }
}

/// The parsed front matter of a Markdown file: top-level keys in order, read with Yams's
/// `compose` so every scalar keeps its written text (dates, zip codes, `1.10` stay as is).
public struct FrontMatter: Sendable {
    /// Top-level keys and values in file order.
    public var fields: [(key: String, value: FrontMatterValue)] = []

    public init() {}

    /// The value of a top-level key.
    public subscript(key: String) -> FrontMatterValue? {
        fields.first { $0.key == key }?.value
    }

    /// The `title` key, when it is a non-empty scalar.
    public var title: String? {
        if case .scalar(let s)? = self["title"], !s.isEmpty { return s }
        return nil
    }

    /// `aliases` (Obsidian, Dendron) or `alias`: other names of the note, as a list or one
    /// string.
    public var aliases: [String] {
        switch self["aliases"] ?? self["alias"] {
        case .scalar(let s)?: return s.isEmpty ? [] : [s]
        case .list(let items)?: return items.filter { !$0.isEmpty }
        default: return []
        }
    }

    /// `tags` as a list or a comma/space separated string, without leading `#`.
    public var tags: [String] {
        guard let value = self["tags"] ?? self["tag"] else { return [] }
        let raw: [String]
        switch value {
        case .scalar(let s):
            raw = s.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        case .list(let items): raw = items
        case .nested: raw = []
        }
        return raw.map { $0.trimmingCharacters(in: " \t#") }.filter { !$0.isEmpty }
    }

    /// The provenance keys, as written (unknown actor names are ignored).
    public var provenance: Provenance {
        func text(_ key: String) -> String? {
            if case .scalar(let s)? = self[key], !s.isEmpty { return s }
            return nil
        }
        return Provenance(
            createdBy: text("created_by").flatMap { Actor(rawValue: $0.lowercased()) },
            createdAt: text("created_at"),
            lastModifiedBy: text("last_modified_by").flatMap { Actor(rawValue: $0.lowercased()) },
            lastModifiedAt: text("last_modified_at"))
    }

    /// Largest front matter parsed; bigger blocks are reported, not parsed.
    public static let maxBytes = 256 * 1024
    /// Deepest flow nesting (`[`/`{`) parsed; deeper is reported (guards the recursive composer).
    public static let maxNesting = 64

    /// Yams builds a new default constructor (tag tables) on every `.default` access; it is
    /// only passed through by `compose`, and never mutated, so one serves every call.
    private nonisolated(unsafe) static let constructor = Constructor.default

    /// Why YAML text could not be used as front matter.
    public enum Problem: Error, Equatable, Sendable {
        case tooComplex(String)
        case invalid(String, line: Int?)
        case notMapping
    }

    /// Parses the YAML text of a front matter block.
    public static func parse(_ yaml: some Collection<UInt8>) throws(Problem) -> FrontMatter {
        if yaml.count > maxBytes {
            throw .tooComplex("front matter is larger than \(maxBytes / 1024) KB")
        }
        // One copy into an array, then concrete code: iterating the generic collection
        // byte by byte (unspecialised across modules) cost more than the YAML parser.
        return try parse(bytes: Array(yaml))
    }

    private static func parse(bytes yaml: [UInt8]) throws(Problem) -> FrontMatter {
        var depth = 0
        var maxDepth = 0
        var indentDepth = 0
        var atLineStart = true
        var indent = 0
        for b in yaml {
            switch b {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                maxDepth = max(maxDepth, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            case 0x0A:
                atLineStart = true
                indent = 0
                continue
            case 0x20 where atLineStart:
                indent += 1
                continue
            default: break
            }
            if atLineStart {
                indentDepth = max(indentDepth, indent)
                atLineStart = false
            }
        }
        if maxDepth > maxNesting || indentDepth > maxNesting * 4 {
            throw .tooComplex("front matter is nested more than \(maxNesting) levels deep")
        }
        if let plain = parsePlain(yaml) { return plain }
        return try parseWithYams(yaml)
    }

    /// Reads any YAML with Yams (``parsePlain`` answers first for the common shape).
    static func parseWithYams(_ yaml: [UInt8]) throws(Problem) -> FrontMatter {
        var text = String(decoding: yaml, as: UTF8.self)
        if text.containsByte(0x0D) { text = text.replacingOccurrences(of: "\r\n", with: "\n") }
        let node: Node?
        do {
            // The basic resolver: scalars keep their written text, so the default resolver's
            // regular expressions (bool, int, float, timestamp) would be wasted work; an
            // explicit encoding keeps Yams from reading the whole environment per call.
            node = try Yams.compose(yaml: text, .basic, constructor, .utf8)
        } catch let error as YamlError {
            throw .invalid(Self.describe(error), line: Self.line(of: error))
        } catch {
            throw .invalid(String(describing: error), line: nil)
        }
        guard let node else { return FrontMatter() }  // empty block
        guard let mapping = node.mapping else { throw .notMapping }
        var result = FrontMatter()
        for (keyNode, valueNode) in mapping {
            guard let key = keyNode.scalar?.string else { continue }
            let value: FrontMatterValue
            switch valueNode {
            case .scalar(let s): value = .scalar(s.string)
            case .sequence(let seq):
                let items = seq.compactMap { $0.scalar?.string }
                value = items.count == seq.count ? .list(items) : .nested
            default: value = .nested
            }
            result.fields.append((key, value))
        }
        return result
    }

    private static func describe(_ error: YamlError) -> String {
        let text = String(describing: error)
        // Yams's descriptions repeat the source; keep the first line.
        return text.split(separator: "\n").first.map(String.init) ?? text
    }

    private static func line(of error: YamlError) -> Int? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        default:
            return nil
        }
    }
}
