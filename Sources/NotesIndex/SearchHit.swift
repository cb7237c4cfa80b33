import Foundation
import NotesCore

/// One file found by a search (SPEC §4.2).
public struct SearchHit: Sendable, Codable {
    public var path: String
    public var title: String
    public var kind: DocumentKind
    /// Relevance: larger is better (the negated BM25 of the file's best section); 0 when
    /// the query has no full-text terms.
    public var score: Double
    /// The file's version (SPEC §6.1).
    public var version: String
    /// Effective provenance (SPEC §3.1).
    public var provenance: Provenance
    public var size: Int
    /// Up to 3 snippets from the best sections.
    public var snippets: [Snippet]
}

/// A line of a matching section, with its matches marked.
public struct Snippet: Sendable, Codable, Equatable {
    /// The section's heading (or chapter line, or chat "role #n"); "" before the first.
    public var section: String
    /// 1-based line in the file.
    public var line: Int
    /// The text of that line (shortened with "…" around the matches when long).
    public var text: String
    /// Matched ranges in `text` as `[start, end)` offsets in Unicode scalars.
    public var spans: [[Int]]
}

/// The answer to a search.
public struct SearchResults: Sendable, Codable {
    public var query: String
    /// How many files match (hits are the first `limit` of them).
    public var total: Int
    public var hits: [SearchHit]
}

/// Builds a ``Snippet`` from FTS5 `highlight()` output, which marks matches with
/// U+0001 … U+0002 in the section's text.
enum SnippetBuilder {
    static let open: Unicode.Scalar = "\u{1}"
    static let close: Unicode.Scalar = "\u{2}"
    static let maxLength = 200

    static func snippet(section: String, sectionLine: Int, aligned: Bool, highlightedBody: String, highlightedHeading: String) -> Snippet {
        let headingText = FTSText.display(highlightedHeading)
        if let line = firstMarkedLine(highlightedBody) {
            let utf8 = highlightedBody.utf8
            let lineStart = utf8.index(utf8.startIndex, offsetBy: line.start)
            let lineEnd = utf8.index(utf8.startIndex, offsetBy: line.end)
            let lineOffset = line.number
            let (text, spans) = clean(highlightedBody[lineStart..<lineEnd].unicodeScalars)
            let (shown, shownSpans) = window(text, spans)
            return Snippet(section: section, line: aligned ? sectionLine + lineOffset : sectionLine, text: shown, spans: shownSpans)
        }
        if headingText.unicodeScalars.contains(open) {
            let (text, spans) = clean(headingText.unicodeScalars[...])
            return Snippet(section: section, line: sectionLine, text: text, spans: spans)
        }
        // The match is in the title or tags: show the section's first line of text.
        var offset = 0
        for line in highlightedBody.lines() {
            if !line.allSatisfy({ $0 == " " || $0 == "\t" }) {
                let (text, _) = clean(line.unicodeScalars[...])
                let (shown, _) = window(text, [])
                return Snippet(section: section, line: aligned ? sectionLine + offset : sectionLine, text: shown, spans: [])
            }
            offset += 1
        }
        return Snippet(section: section, line: sectionLine, text: section, spans: [])
    }

    /// The line holding the first match marker: its byte range and how many lines come
    /// before it. Scans bytes (the markers and newlines are ASCII): sections run to
    /// kilobytes, and a scalar-by-scalar scan of every snippet's section cost more than
    /// the SQL that made it (callgrind).
    static func firstMarkedLine(_ text: String) -> (start: Int, end: Int, number: Int)? {
        var text = text
        return text.withUTF8 { bytes -> (start: Int, end: Int, number: Int)? in
            guard let base = bytes.baseAddress, let found = memchr(base, 0x01, bytes.count) else { return nil }
            let marker = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            var number = 0
            var start = 0
            for i in 0..<marker where bytes[i] == 0x0A {
                number += 1
                start = i + 1
            }
            var end = marker
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            return (start, end, number)
        }
    }

    /// Removes markers and CJK separators, trims the line, and returns the spans.
    static func clean(_ scalars: Substring.UnicodeScalarView) -> (String, [[Int]]) {
        var out = String.UnicodeScalarView()
        var spans: [[Int]] = []
        var count = 0
        var spanStart: Int?
        var leading = true
        for s in scalars {
            if s == open { spanStart = count; leading = false; continue }
            if s == close {
                if let start = spanStart, count > start { spans.append([start, count]) }
                spanStart = nil
                continue
            }
            if s == FTSText.separator || s == "\r" { continue }
            if leading && (s == " " || s == "\t") { continue }
            leading = false
            out.append(s == "\t" ? " " : s)
            count += 1
        }
        // Trim trailing spaces (spans never extend there).
        while let last = out.last, last == " " { out.removeLast(); count -= 1 }
        return (String(out), spans.map { [$0[0], min($0[1], count)] }.filter { $0[0] < $0[1] })
    }

    /// Cuts a long line to a window around the first match, with "…" where it was cut.
    static func window(_ text: String, _ spans: [[Int]]) -> (String, [[Int]]) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count > maxLength else { return (text, spans) }
        let anchor = spans.first?[0] ?? 0
        var start = max(0, anchor - 60)
        var end = min(scalars.count, start + maxLength)
        start = max(0, min(start, end - maxLength))
        // Prefer cutting at spaces.
        if start > 0, let space = scalars[start..<min(anchor, scalars.count)].firstIndex(of: " ") { start = space + 1 }
        if end < scalars.count, let space = scalars[max(start, anchor)..<end].lastIndex(of: " "), space > anchor { end = space }
        var out = String.UnicodeScalarView()
        var shift = -start
        if start > 0 { out.append("…"); shift += 1 }
        out.append(contentsOf: scalars[start..<end])
        if end < scalars.count { out.append("…") }
        let shifted = spans.compactMap { span -> [Int]? in
            let s = span[0] - start, e = min(span[1], end) - start
            guard s >= 0, e > s else { return nil }
            return [s + (shift + start), e + (shift + start)]
        }
        return (String(out), shifted)
    }
}
