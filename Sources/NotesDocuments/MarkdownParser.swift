import CCmark
import CMarkdownArena
import Foundation
import NotesCore

/// What cmark's AST yields for one Markdown body (docs/spec.md §3.2), with lines counted in the
/// body as given (1-based). The only place in the package that touches cmark.
struct MarkdownOutline {
    /// Plain text per body line: `lines[k]` is the text of body line `k + 1`. Heading lines
    /// are empty (headings are kept in ``headings``); HTML is stripped; code kept as text.
    var lines: [String]
    var headings: [DocumentHeading] = []
    var links: [DocumentLink] = []
    var tags: [String] = []
}

enum MarkdownParser {
    /// Parses `body` with cmark and collects the outline.
    static func outline(of body: String) -> MarkdownOutline {
        let lineCount = body.countByte(0x0A) + 1
        var outline = MarkdownOutline(lines: Array(repeating: "", count: lineCount))
        var utf8 = Array(body.utf8)
        guard
            let document = utf8.withUnsafeMutableBufferPointer({ buffer -> OpaquePointer? in
                buffer.baseAddress!.withMemoryRebound(
                    to: CChar.self, capacity: max(buffer.count, 1)
                ) {
                    notes_markdown_parse($0, buffer.count, CMARK_OPT_DEFAULT)
                }
            })
        else { return outline }
        // Everything cmark made (nodes, their strings, the iterator) goes at once here.
        defer { notes_markdown_release(document) }
        let source = CodeSpanSource(bytes: utf8)
        utf8 = []
        guard let iterator = cmark_iter_new(document) else { return outline }
        defer { cmark_iter_free(iterator) }

        var block: InlineCollector?
        var openLinks: [(url: String, textStart: Int, newlinesBefore: Int)] = []
        var tagSet = Set<String>()

        /// Adds `piece` to line `index` (0-based); false when the body has no such line.
        func put(_ piece: some StringProtocol, at index: Int) -> Bool {
            guard index >= 0 && index < outline.lines.count else { return false }
            if outline.lines[index].isEmpty {
                outline.lines[index] = String(piece)
            } else {
                outline.lines[index] += " " + piece
            }
            return true
        }

        func place(_ text: String, at line: Int) {
            // one line (most paragraphs): no split
            if !text.containsByte(0x0A) && !text.containsByte(0x0D) {
                _ = put(text, at: line - 1)
                return
            }
            for (offset, piece) in text.lines().enumerated()
            where !put(piece, at: line - 1 + offset) { break }
        }

        while true {
            let event = cmark_iter_next(iterator)
            if event == CMARK_EVENT_DONE { break }
            guard let node = cmark_iter_get_node(iterator) else { continue }
            let type = cmark_node_get_type(node)
            let entering = event == CMARK_EVENT_ENTER
            switch type {
            case CMARK_NODE_PARAGRAPH, CMARK_NODE_HEADING:
                if entering {
                    let level =
                        type == CMARK_NODE_HEADING ? Int(cmark_node_get_heading_level(node)) : 0
                    block = InlineCollector(
                        line: Int(cmark_node_get_start_line(node)), headingLevel: level)
                    if type == CMARK_NODE_PARAGRAPH,
                        cmark_node_get_end_line(node) > cmark_node_get_start_line(node)
                    {
                        block?.paragraph = (
                            Int(cmark_node_get_start_line(node)),
                            Int(cmark_node_get_start_column(node)),
                            Int(cmark_node_get_end_line(node))
                        )
                    }
                } else if let done = block {
                    let text = done.text
                    let scanText = done.codeSpans.isEmpty ? text : done.scanText
                    for tag in InlineScanner.tags(in: scanText)
                    where tagSet.insert(tag.lowercased()).inserted {
                        outline.tags.append(tag)
                    }
                    for wiki in InlineScanner.wikilinks(in: scanText) {
                        outline.links.append(
                            DocumentLink(
                                kind: .wiki, target: wiki.target, text: wiki.alias ?? wiki.target,
                                line: done.line + wiki.lineOffset))
                    }
                    if done.headingLevel > 0 {
                        let heading = text.lines().map { $0.trimmingBlanks() }.joined(
                            separator: " ")
                        outline.headings.append(
                            DocumentHeading(
                                level: done.headingLevel, text: heading, line: done.line))
                    } else {
                        place(text, at: done.line)
                    }
                    block = nil
                }
            case CMARK_NODE_TEXT:
                block?.append(literalBytes(node), isCode: false)
            case CMARK_NODE_CODE:
                let code = literalBytes(node)
                block?.append(code, isCode: true)
                // cmark turns a code span's line breaks into spaces; put them back after the
                // span so the text that follows stays on its own line.
                if let breaks = block?.lineBreaks(inCode: code, source: source), breaks > 0 {
                    block?.appendLineBreaks(breaks)
                }
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                block?.appendLineBreaks(1)
            case CMARK_NODE_HTML_INLINE:
                // Stripped, but its line breaks are kept so later text stays on its line.
                let breaks = literalBytes(node).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
                if breaks > 0 { block?.appendLineBreaks(breaks) }
            case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                guard let current = block else { continue }
                if entering {
                    let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
                    openLinks.append((url, current.bytes.count, current.newlines))
                } else if let open = openLinks.popLast() {
                    let text = current.text(from: min(open.textStart, current.bytes.count))
                        .replacingNewlines()
                    if !open.url.isEmpty {
                        outline.links.append(
                            DocumentLink(
                                kind: .markdown, target: open.url, text: text,
                                line: current.line + open.newlinesBefore))
                    }
                }
            case CMARK_NODE_CODE_BLOCK:
                // A fenced block spans more lines than its content: the content starts on
                // the line after the opening fence.
                var line = Int(cmark_node_get_start_line(node))
                let span = Int(cmark_node_get_end_line(node)) - line + 1
                let code = literal(node)
                let contentLines = code.countByte(0x0A)
                if span > contentLines { line += 1 }
                place(code, at: line)
            case CMARK_NODE_HTML_BLOCK:
                place(HTMLText.strip(literal(node)), at: Int(cmark_node_get_start_line(node)))
            default:
                break
            }
        }
        return outline
    }

    private static func literal(_ node: OpaquePointer) -> String {
        cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
    }

    /// A node's literal in place (valid until the document is released; cmark has already
    /// replaced any invalid UTF-8).
    private static func literalBytes(_ node: OpaquePointer) -> UnsafeBufferPointer<UInt8> {
        guard let literal = cmark_node_get_literal(node) else {
            return UnsafeBufferPointer(start: nil, count: 0)
        }
        return UnsafeBufferPointer(
            start: UnsafeRawPointer(literal).assumingMemoryBound(to: UInt8.self),
            count: strlen(literal))
    }
}

/// Collects the inline text of one paragraph or heading, as UTF-8 bytes (cmark's literals
/// appended where they lie: building Strings piece by piece cost as much as cmark's parse).
private struct InlineCollector {
    let line: Int
    let headingLevel: Int
    var bytes: [UInt8] = []
    /// Where code spans lie in ``bytes``: blanked in ``scanText``.
    var codeSpans: [Range<Int>] = []
    var newlines = 0
    /// A paragraph over several lines (first line, its column, last line), until its first
    /// code span turns it into ``codeSearch``.
    var paragraph: (start: Int, column: Int, end: Int)?
    /// Where this paragraph's next code span is looked for in the source (nil: a one-line
    /// paragraph, or a span that could not be matched).
    var codeSearch: CodeSpanSource.Search?

    init(line: Int, headingLevel: Int) {
        self.line = line
        self.headingLevel = headingLevel
        bytes.reserveCapacity(128)
    }

    /// Adds inline text. Code spans count as text for search but never as tags or links.
    mutating func append(_ piece: UnsafeBufferPointer<UInt8>, isCode: Bool) {
        let start = bytes.count
        bytes.append(contentsOf: piece)
        if isCode && !piece.isEmpty { codeSpans.append(start..<bytes.count) }
        for byte in piece where byte == 0x0A { newlines += 1 }
    }

    mutating func appendLineBreaks(_ count: Int) {
        bytes.append(contentsOf: repeatElement(0x0A, count: count))
        newlines += count
    }

    /// The text collected.
    var text: String { String(decoding: bytes, as: UTF8.self) }

    /// The text from byte `offset` (where a piece began) on.
    func text(from offset: Int) -> String { String(decoding: bytes[offset...], as: UTF8.self) }

    /// The same text with code spans blanked byte by byte (only line breaks survive, so
    /// line offsets still hold), for finding #tags and [[links]].
    /// Without a `#` or `[` nothing is found either way, and the text is returned as is.
    var scanText: String {
        guard !codeSpans.isEmpty,
            bytes.contains(where: { $0 == 0x23 || $0 == 0x5B })
        else { return text }
        var blanked = bytes
        blanked.withUnsafeMutableBufferPointer { out in
            for span in codeSpans {
                for i in span where out[i] != 0x0A { out[i] = 0x20 }
            }
        }
        return String(decoding: blanked, as: UTF8.self)
    }

    /// The line breaks cmark folded inside this code span (see ``CodeSpanSource``); the
    /// paragraph's source is looked at only once it has a code span.
    mutating func lineBreaks(inCode code: UnsafeBufferPointer<UInt8>, source: CodeSpanSource) -> Int
    {
        if let lines = paragraph {
            paragraph = nil
            codeSearch = source.paragraph(
                startLine: lines.start, startColumn: lines.column, endLine: lines.end)
        }
        return source.lineBreaks(inSpan: code, searching: &codeSearch)
    }
}

extension String {
    /// The text on one line: each line-break byte (`\n`, `\r`) becomes a space.
    func replacingNewlines() -> String {
        guard containsByte(0x0A) || containsByte(0x0D) else { return self }
        return mappingBytes { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }
    }

    /// The string with each UTF-8 byte replaced by `transform(byte)`, which must keep the
    /// bytes valid UTF-8 (ASCII for ASCII). One pass into a new buffer (`utf8.map` went
    /// through the generic collection path, byte by byte).
    func mappingBytes(_ transform: (UInt8) -> UInt8) -> String {
        var source = self
        return source.withUTF8 { bytes in
            String(unsafeUninitializedCapacity: bytes.count) { out in
                for i in 0..<bytes.count { out[i] = transform(bytes[i]) }
                return bytes.count
            }
        }
    }
}

/// The Markdown source, for the one fact cmark's tree loses: how many line breaks a code
/// span covered (its literal has them as spaces, and inline source positions in cmark 0.30
/// do not count them). Each span is matched in the paragraph's source and its normalised
/// text compared with cmark's literal; on any doubt (a blockquote's `>` inside the span, an
/// HTML attribute holding backticks) the answer is 0, which is the text as cmark gives it.
final class CodeSpanSource {
    let bytes: [UInt8]
    /// Byte offset where each line starts (lines are 1-based for cmark); found the first
    /// time a multi-line paragraph has a code span.
    private lazy var lineStarts: [Int] = {
        var starts = [0]
        for (i, b) in bytes.enumerated() where b == 0x0A { starts.append(i + 1) }
        return starts
    }()

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Where the next code span of a paragraph is looked for, and how many more bytes may
    /// be looked at: a few passes over the paragraph, so backtick runs without a closer
    /// (each scanned to the end) can never make this quadratic.
    struct Search {
        var range: Range<Int>
        var budget: Int
    }

    /// The bytes of a paragraph that spans more than one line, from its first column.
    func paragraph(startLine: Int, startColumn: Int, endLine: Int) -> Search? {
        guard endLine > startLine, startLine >= 1, endLine <= lineStarts.count else { return nil }
        let start = lineStarts[startLine - 1] + max(0, startColumn - 1)
        let end = endLine < lineStarts.count ? lineStarts[endLine] : bytes.count
        return start < end ? Search(range: start..<end, budget: 4 * (end - start) + 1024) : nil
    }

    /// Finds the next code span in `search` whose text is `literal`, returns how many line
    /// breaks it covers and moves `search` past it; answers 0 and ends the search when the
    /// next span found is not that one.
    func lineBreaks(inSpan literal: some Sequence<UInt8>, searching search: inout Search?) -> Int {
        guard let range = search?.range, var budget = search?.budget else { return 0 }
        let backtick = UInt8(ascii: "`")
        var i = range.lowerBound
        while i < range.upperBound {
            budget -= 1
            if budget < 0 { break }
            if bytes[i] == UInt8(ascii: "\\") {
                i += 2
                continue
            }  // an escaped character never opens a span
            guard bytes[i] == backtick else {
                i += 1
                continue
            }
            var opening = 0
            while i < range.upperBound && bytes[i] == backtick {
                opening += 1
                i += 1
            }
            // The span closes at the next run of exactly as many backticks.
            var j = i
            while j < range.upperBound {
                budget -= 1
                if budget < 0 { break }
                guard bytes[j] == backtick else {
                    j += 1
                    continue
                }
                let runStart = j
                while j < range.upperBound && bytes[j] == backtick { j += 1 }
                guard j - runStart == opening else { continue }
                let content = bytes[i..<runStart]
                search =
                    j < range.upperBound ? Search(range: j..<range.upperBound, budget: budget) : nil
                guard Self.normalised(content).elementsEqual(literal) else {
                    search = nil
                    return 0
                }
                return content.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            }
            // No closer: cmark reads these backticks as text; look further on.
        }
        search = nil
        return 0
    }

    /// A code span's content as cmark makes its literal: each line break with the
    /// indentation after it (stripped from paragraph lines) becomes one space, then one
    /// space is taken off each end when both ends have one and not everything is spaces.
    static func normalised(_ content: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(content.count)
        var i = content.startIndex
        while i < content.endIndex {
            let b = content[i]
            if b == 0x0D, i + 1 < content.endIndex, content[i + 1] == 0x0A {
                i += 1
                continue
            }
            if b == 0x0A {
                out.append(0x20)
                i += 1
                while i < content.endIndex, content[i] == 0x20 || content[i] == 0x09 { i += 1 }
                continue
            }
            out.append(b)
            i += 1
        }
        if out.count >= 2, out.first == 0x20, out.last == 0x20, out.contains(where: { $0 != 0x20 })
        {
            out.removeFirst()
            out.removeLast()
        }
        return out
    }
}
