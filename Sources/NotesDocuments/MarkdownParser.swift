import CCmark
import CMarkdownArena
import Foundation
import NotesCore

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
