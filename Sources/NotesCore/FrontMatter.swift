import Foundation
import Yams

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
