import Foundation
import NotesCore

/// Builds a ``Snippet`` from the window `notes_snippet()` cuts around a section's first
/// match (matches marked U+0001 … U+0002), or from FTS5's `highlight()` of its heading.
enum SnippetBuilder {
    static let open: Unicode.Scalar = "\u{1}"
    static let close: Unicode.Scalar = "\u{2}"
    static let maxLength = 200
    /// The bytes of the matching line `notes_snippet()` keeps before and after the match:
    /// enough for ``maxLength`` characters of any script, whatever the line's length.
    static let contextBefore = 480
    static let contextAfter = 960

    /// - Parameters:
    ///   - markedLine: `notes_snippet()`'s answer for the body ("LINE\tCUT_START\tCUT_END\tTEXT"),
    ///     nil when the body holds no match.
    ///   - opening: the body's first bytes, for a section that matched only by title or tags.
    ///   - firstSection: whether this is the file's first section, whose heading is usually
    ///     the note's title: a match there alone shows the text under it, as a title match
    ///     does (the hit already shows its title).
    static func snippet(
        section: String, sectionLine: Int, aligned: Bool, markedLine: String?,
        highlightedHeading: String, opening: String?, firstSection: Bool = false
    ) -> Snippet {
        let headingText = FTSText.display(highlightedHeading)
        if let markedLine, let parsed = parse(markedLine) {
            let (text, spans) = clean(parsed.text.unicodeScalars[...])
            var (shown, shownSpans) = window(text, spans)
            if parsed.cutStart && !shown.hasPrefix("…") {
                shown = "…" + shown
                shownSpans = shownSpans.map { [$0[0] + 1, $0[1] + 1] }
            }
            if parsed.cutEnd && !shown.hasSuffix("…") { shown += "…" }
            return Snippet(
                section: section, line: aligned ? sectionLine + parsed.line : sectionLine,
                text: shown, spans: shownSpans)
        }
        // The first line of text, a table's first row rather than its header.
        let opens = { () -> Snippet? in
            let lines = (opening ?? "").lines()
            guard let offset = firstShownLine(lines) else { return nil }
            let (text, _) = clean(lines[offset].unicodeScalars[...])
            let (shown, _) = window(text, [])
            return Snippet(
                section: section, line: aligned ? sectionLine + offset : sectionLine,
                text: shown, spans: [])
        }
        if headingText.unicodeScalars.contains(open) {
            if firstSection, let text = opens() { return text }
            let (text, spans) = clean(headingText.unicodeScalars[...])
            return Snippet(section: section, line: sectionLine, text: text, spans: spans)
        }
        // The match is in the title or tags: show the section's first line of text.
        return opens() ?? Snippet(section: section, line: sectionLine, text: section, spans: [])
    }

    /// The first line of `lines` from `start` worth showing: not blank, and not a Markdown
    /// table's header or delimiter row (they say nothing of a row: a table shows its first).
    static func firstShownLine(_ lines: [Substring], from start: Int = 0) -> Int? {
        var n = max(0, start)
        while n < lines.count {
            let blank = lines[n].allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            let tableHeader =
                isDelimiterRow(lines[n]) || (n + 1 < lines.count && isDelimiterRow(lines[n + 1]))
            if !blank && !tableHeader { return n }
            n += 1
        }
        return nil
    }

    /// Whether `line` is a Markdown table's delimiter row (`|---|:--:|`).
    static func isDelimiterRow(_ line: Substring) -> Bool {
        let cells = line.trimmingCharacters(in: .whitespaces)
        return cells.contains("-") && cells.contains("|")
            && cells.allSatisfy { "|-: \t".contains($0) }
    }

    private static func parse(_ marked: String) -> (
        line: Int, cutStart: Bool, cutEnd: Bool, text: Substring
    )? {
        let parts = marked.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 4, let line = Int(parts[0]) else { return nil }
        return (line, parts[1] == "1", parts[2] == "1", parts[3])
    }

    /// Removes markers and CJK separators, trims the line, and returns the spans.
    static func clean(_ scalars: Substring.UnicodeScalarView) -> (String, [[Int]]) {
        var out = String.UnicodeScalarView()
        var spans: [[Int]] = []
        var count = 0
        var spanStart: Int?
        var leading = true
        for s in scalars {
            if s == open {
                spanStart = count
                leading = false
                continue
            }
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
        while let last = out.last, last == " " {
            out.removeLast()
            count -= 1
        }
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
        if start > 0, let space = scalars[start..<min(anchor, scalars.count)].firstIndex(of: " ") {
            start = space + 1
        }
        if end < scalars.count, let space = scalars[max(start, anchor)..<end].lastIndex(of: " "),
            space > anchor
        {
            end = space
        }
        var out = String.UnicodeScalarView()
        var shift = -start
        if start > 0 {
            out.append("…")
            shift += 1
        }
        out.append(contentsOf: scalars[start..<end])
        if end < scalars.count { out.append("…") }
        let shifted = spans.compactMap { span -> [Int]? in
            let s = span[0] - start
            let e = min(span[1], end) - start
            guard s >= 0, e > s else { return nil }
            return [s + (shift + start), e + (shift + start)]
        }
        return (String(out), shifted)
    }
}
