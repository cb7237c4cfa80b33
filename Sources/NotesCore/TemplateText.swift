/// Mustache-style `{{name}}` substitution, used by templates (SPEC §8.3) and by
/// `--format` output. Unknown names render as empty text; `{{{name}}}` is the same as
/// `{{name}}` (nothing is HTML-escaped: the output is plain text or Markdown).
public struct TemplateText: Sendable {
    public let source: String

    public init(_ source: String) { self.source = source }

    /// The names the template uses, in order of first use.
    public var variables: [String] {
        var seen: [String] = []
        render { name in
            if !seen.contains(name) { seen.append(name) }
            return ""
        }
        return seen
    }

    /// Renders with `values`.
    public func render(_ values: [String: String]) -> String {
        render { values[$0] ?? "" }
    }

    @discardableResult
    func render(_ lookup: (String) -> String) -> String {
        var out = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            out += rest[..<open.lowerBound]
            var after = rest[open.upperBound...]
            var triple = false
            if after.first == "{" { triple = true; after = after.dropFirst() }
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
    func range(of needle: String) -> Range<Substring.Index>? {
        guard let first = needle.first else { return nil }
        var index = startIndex
        while let found = self[index...].firstIndex(of: first) {
            if self[found...].hasPrefix(needle) { return found..<self.index(found, offsetBy: needle.count) }
            index = self.index(after: found)
        }
        return nil
    }

    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
