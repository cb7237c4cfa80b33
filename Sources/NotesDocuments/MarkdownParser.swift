import CCmark
import Foundation
import NotesCore

/// What cmark's AST yields for one Markdown body (SPEC §3.2), with lines counted in the
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
        guard let document = utf8.withUnsafeMutableBufferPointer({ buffer -> OpaquePointer? in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(buffer.count, 1)) {
                cmark_parse_document($0, buffer.count, CMARK_OPT_DEFAULT)
            }
        }) else { return outline }
        defer { cmark_node_free(document) }
        utf8 = []
        guard let iterator = cmark_iter_new(document) else { return outline }
        defer { cmark_iter_free(iterator) }

        var block: InlineCollector?
        var openLinks: [(url: String, textStart: Int, newlinesBefore: Int)] = []
        var tagSet = Set<String>()

        func place(_ text: String, at line: Int) {
            var index = line - 1
            for piece in text.lines() {
                guard index >= 0 && index < outline.lines.count else { break }
                if outline.lines[index].isEmpty { outline.lines[index] = String(piece) } else { outline.lines[index] += " " + piece }
                index += 1
            }
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
                    let level = type == CMARK_NODE_HEADING ? Int(cmark_node_get_heading_level(node)) : 0
                    block = InlineCollector(line: Int(cmark_node_get_start_line(node)), headingLevel: level)
                } else if let done = block {
                    let text = done.text
                    for tag in InlineScanner.tags(in: done.scanText) where tagSet.insert(tag.lowercased()).inserted {
                        outline.tags.append(tag)
                    }
                    for wiki in InlineScanner.wikilinks(in: done.scanText) {
                        outline.links.append(DocumentLink(kind: .wiki, target: wiki.target, text: wiki.alias ?? wiki.target, line: done.line + wiki.lineOffset))
                    }
                    if done.headingLevel > 0 {
                        let heading = text.lines().map { $0.trimmingBlanks() }.joined(separator: " ")
                        outline.headings.append(DocumentHeading(level: done.headingLevel, text: heading, line: done.line))
                    } else {
                        place(text, at: done.line)
                    }
                    block = nil
                }
            case CMARK_NODE_TEXT:
                block?.append(literal(node), isCode: false)
            case CMARK_NODE_CODE:
                block?.append(literal(node), isCode: true)
            case CMARK_NODE_SOFTBREAK, CMARK_NODE_LINEBREAK:
                block?.append("\n", isCode: false)
            case CMARK_NODE_HTML_INLINE:
                // Stripped, but its line breaks are kept so later text stays on its line.
                let breaks = literal(node).countByte(0x0A)
                if breaks > 0 { block?.append(String(repeating: "\n", count: breaks), isCode: false) }
            case CMARK_NODE_LINK, CMARK_NODE_IMAGE:
                guard let current = block else { continue }
                if entering {
                    let url = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
                    openLinks.append((url, current.text.utf8.count, current.newlines))
                } else if let open = openLinks.popLast() {
                    let utf8 = current.text.utf8
                    let start = utf8.index(utf8.startIndex, offsetBy: min(open.textStart, utf8.count))
                    let text = String(current.text[start...]).replacingNewlines()
                    if !open.url.isEmpty {
                        outline.links.append(DocumentLink(kind: .markdown, target: open.url, text: text, line: current.line + open.newlinesBefore))
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
}

/// Collects the inline text of one paragraph or heading.
private struct InlineCollector {
    let line: Int
    let headingLevel: Int
    var text = ""
    /// The same text with code spans blanked out, for finding #tags and [[links]].
    var scanText = ""
    var newlines = 0

    init(line: Int, headingLevel: Int) {
        self.line = line
        self.headingLevel = headingLevel
    }

    /// Adds inline text. Code spans count as text for search but never as tags or links.
    mutating func append(_ piece: String, isCode: Bool) {
        text += piece
        if isCode {
            // Blanked byte by byte (on bytes: mapping Characters cost more than cmark's
            // whole parse); only line breaks survive, so line offsets still hold.
            scanText += String(decoding: piece.utf8.map { $0 == 0x0A ? 0x0A : 0x20 }, as: UTF8.self)
        } else {
            scanText += piece
        }
        newlines += piece.countByte(0x0A)
    }
}

extension String {
    /// The text on one line: each line-break byte (`\n`, `\r`) becomes a space.
    func replacingNewlines() -> String {
        guard containsByte(0x0A) || containsByte(0x0D) else { return self }
        return String(decoding: utf8.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
    }
}
