/// Mustache-style `{{name}}` substitution, used by templates (docs/spec.md §8.3) and by
/// `--format` output. Unknown names render as empty text (`notes search --format` rejects
/// them first, from ``tagNames``); `{{{name}}}` is the same as
/// `{{name}}` (nothing is HTML-escaped: the output is plain text or Markdown).
/// `{{#name}}…{{/name}}` keeps its text only when `name` has a value, `{{^name}}…{{/name}}`
/// only when it has none (optional variables); a section tag alone on its line leaves no
/// blank line behind.
public struct TemplateText: Sendable {
    public let source: String

    public init(_ source: String) { self.source = source }

    /// The names the template uses, in order of first use.
    public var variables: [String] {
        var seen: [String] = []
        TemplateText(Self.sections(source) { _ in true }).render { name in
            if !seen.contains(name) { seen.append(name) }
            return ""
        }
        return seen
    }

    /// Renders with `values`.
    public func render(_ values: [String: String]) -> String {
        TemplateText(Self.sections(source) { !(values[$0] ?? "").isEmpty }).render {
            values[$0] ?? ""
        }
    }

    /// Every name in a tag, in order of first use: variables and sections alike, whatever
    /// branch of a section they sit in.
    public var tagNames: [String] {
        var seen: [String] = []
        var rest = Substring(source)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}")
        {
            var name = rest[open.upperBound..<close.lowerBound]
            if name.hasPrefix("{") { name = name.dropFirst() }
            if let first = name.first, "#^/".contains(first) { name = name.dropFirst() }
            let trimmed = name.trimmingCharacters(in: " \t")
            if !trimmed.isEmpty && !seen.contains(trimmed) { seen.append(trimmed) }
            rest = rest[close.upperBound...]
            if rest.hasPrefix("}") { rest = rest.dropFirst() }
        }
        return seen
    }

    /// The names used in `{{#name}}` / `{{^name}}` sections (optional variables).
    public var sectionNames: [String] {
        var seen: [String] = []
        _ = Self.sections(source) { name in
            if !seen.contains(name) { seen.append(name) }
            return true
        }
        return seen
    }

    /// `text` with its sections resolved by `isSet`.
    static func sections(_ text: String, _ isSet: (String) -> Bool) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{#") ?? rest.range(of: "{{^") {
            // Whichever section opens first.
            let hash = rest.range(of: "{{#")
            let caret = rest.range(of: "{{^")
            let first =
                [hash, caret].compactMap { $0 }.min { $0.lowerBound < $1.lowerBound } ?? open
            let inverted = rest[first].hasPrefix("{{^")
            guard let nameEnd = rest[first.upperBound...].range(of: "}}") else { break }
            let name = rest[first.upperBound..<nameEnd.lowerBound].trimmingCharacters(in: " \t")
            guard let close = rest[nameEnd.upperBound...].range(of: "{{/" + name + "}}") else {
                break
            }
            let before = rest[..<first.lowerBound]
            var inner = rest[nameEnd.upperBound..<close.lowerBound]
            var after = rest[close.upperBound...]
            // Standalone tags (alone on their line) take their line break with them.
            let openingAlone = before.hasSuffixLineStart && inner.first == "\n"
            if openingAlone { inner = inner.dropFirst() }
            if after.first == "\n",
                inner.last == "\n" || (inner.isEmpty && before.hasSuffixLineStart)
            {
                after = after.dropFirst()
            }
            out += before
            if isSet(name) != inverted { out += sections(String(inner), isSet) }
            rest = after
        }
        out += rest
        return out
    }

    @discardableResult
    func render(_ lookup: (String) -> String) -> String {
        var out = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            var after = rest[open.upperBound...]
            var triple = false
            if after.first == "{" {
                triple = true
                after = after.dropFirst()
            }
            guard let close = after.range(of: triple ? "}}}" : "}}") else {
                out += rest[open.lowerBound...]
                return out
            }
            let name = after[..<close.lowerBound].trimmingCharacters(in: " \t")
            out += lookup(name)
            rest = after[close.upperBound...]
        }
        out += rest
        return out
    }

    /// A URL- and file-name-friendly form of a title: lowercase ASCII letters, digits and
    /// dashes (`Moby Dick; or The Whale` → `moby-dick-or-the-whale`).
    public static func slug(_ title: String) -> String {
        var out = ""
        var dash = false
        for scalar in title.lowercased().unicodeScalars {
            if scalar == "'" || scalar == "\u{2019}" { continue }  // "Hawthorne's" → "hawthornes"
            if scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)) {
                out.unicodeScalars.append(scalar)
                dash = false
            } else if scalar.properties.isAlphabetic {
                out.unicodeScalars.append(scalar)  // keep non-ASCII letters (CJK titles)
                dash = false
            } else if !dash && !out.isEmpty {
                out += "-"
                dash = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "untitled" : out
    }
}

extension Substring {
    /// Whether this text ends at the start of a line (empty, or after a newline).
    var hasSuffixLineStart: Bool { isEmpty || last == "\n" }

    func range(of needle: String) -> Range<Substring.Index>? {
        guard let first = needle.first else { return nil }
        var index = startIndex
        while let found = self[index...].firstIndex(of: first) {
            if self[found...].hasPrefix(needle) {
                return found..<self.index(found, offsetBy: needle.count)
            }
            index = self.index(after: found)
        }
        return nil
    }

    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
