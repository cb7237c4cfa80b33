import NotesCore

/// Turns a file's bytes into a ``ParsedDocument`` (docs/spec.md §3): front matter and provenance,
/// title, tags, headings, links, and sections with line numbers.
///
/// Never throws and never crashes on bad input: malformed front matter, invalid UTF-8,
/// pathological Markdown and broken JSON all produce a document plus diagnostics. Binary
/// and UTF-16 files yield `nil` with a diagnostic (listed, not indexed).
public enum DocumentParser {
    /// Bump when parsing changes what is extracted: existing indexes are then rebuilt.
    public static let version = 6

    /// `key`'s value as a timestamp: epoch seconds or milliseconds, or a date notes reads.
    static func foreignDate(_ frontMatter: FrontMatter, _ key: String) -> String? {
        guard case .scalar(let raw)? = frontMatter[key] else { return nil }
        let text = raw  // YAML scalars come trimmed
        if text.count >= 9 && text.count <= 13, text.allSatisfy({ $0 >= "0" && $0 <= "9" }),
            let number = Double(text), number > 0
        {
            return Timestamp.format(text.count >= 12 ? number / 1000 : number)
        }
        return Timestamp.parse(text) != nil ? text : nil
    }

    /// Parses the file at workspace-relative `path`.
    public static func parse(path: String, bytes original: [UInt8]) -> (
        document: ParsedDocument?, diagnostics: [Diagnostic]
    ) {
        let format = FileFormat(path: path)
        guard format.isIndexed else { return (nil, []) }
        let bytes = loneCarriageReturnsAsNewlines(original)
        let decoded: DecodedText
        do {
            decoded = try DecodedText.decode(bytes, path: path)
        } catch .binary {
            return (
                nil,
                [
                    Diagnostic(
                        path: path, code: .binary,
                        message: "file looks binary (NUL bytes); listed but not indexed")
                ]
            )
        } catch {
            return (
                nil,
                [
                    Diagnostic(
                        path: path, code: .unsupportedEncoding,
                        message: "file is UTF-16; only UTF-8 is indexed")
                ]
            )
        }
        var document: ParsedDocument
        switch format {
        case .markdown: document = parseMarkdown(path: path, bytes: bytes, text: decoded.text)
        case .text: document = parseText(path: path, text: decoded.text)
        case .chat:
            document = ChatParser.parse(decoded.text, path: path, fallbackTitle: fileTitle(path))
        case .other: return (nil, [])
        }
        document.diagnostics = decoded.diagnostics + document.diagnostics
        return (document, document.diagnostics)
    }

    /// `bytes` with every CR not followed by LF made an LF: a file saved with old Mac line
    /// endings (CR only) is read line by line like any other (its sections, headings and
    /// line numbers), not as one line. Byte for byte, so offsets hold; CRLF is left alone.
    static func loneCarriageReturnsAsNewlines(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.firstIndex(of: 0x0D) else { return bytes }
        var out: [UInt8]? = nil
        var i = first
        while i < bytes.count {
            if bytes[i] == 0x0D && (i + 1 == bytes.count || bytes[i + 1] != 0x0A) {
                if out == nil { out = bytes }
                out![i] = 0x0A
            }
            i += 1
        }
        return out ?? bytes
    }

    /// The file name without its extension: the title of last resort.
    public static func fileTitle(_ path: String) -> String {
        let name = path.lastPathSegment
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else {
            return String(name)
        }
        return String(name[..<dot])
    }

    static func parseText(path: String, text: String) -> ParsedDocument {
        var document = ParsedDocument(
            title: TextSectioner.declaredTitle(in: text) ?? fileTitle(path))
        document.sections = TextSectioner.sections(of: text)
        return document
    }

    static func parseMarkdown(path: String, bytes: [UInt8], text: String) -> ParsedDocument {
        var document = ParsedDocument(title: fileTitle(path))
        var body = Substring(text)
        var lineOffset = 0
        switch FrontMatterBlock.split(bytes) {
        case .none:
            break
        case .unterminated:
            document.diagnostics.append(
                Diagnostic(
                    path: path, code: .unterminatedFrontMatter,
                    message: "front matter has no closing '---'; the whole file is indexed as text",
                    line: 1))
        case .present(let block):
            do {
                let frontMatter = try FrontMatter.parse(bytes[block.yaml])
                document.hasFrontMatter = true
                document.metadata = frontMatter.fields
                document.provenance = frontMatter.provenance
                // Other tools' dates (Dendron's and Obsidian plugins' `created` / `updated`,
                // epoch milliseconds or dates) date the note when notes's own keys are absent.
                if document.provenance.createdAt == nil {
                    document.provenance.createdAt = Self.foreignDate(frontMatter, "created")
                }
                if document.provenance.lastModifiedAt == nil {
                    document.provenance.lastModifiedAt =
                        Self.foreignDate(frontMatter, "updated")
                        ?? Self.foreignDate(frontMatter, "modified")
                }
                document.tags = frontMatter.tags
                document.aliases = frontMatter.aliases
                if let title = frontMatter.title { document.title = title }
                // The decoded text has no BOM: skip the block by counting its lines.
                body = dropLines(block.lineCount, from: body)
                lineOffset = block.lineCount
            } catch {
                switch error {
                case .notMapping:
                    document.diagnostics.append(
                        Diagnostic(
                            path: path, code: .frontMatterNotMapping,
                            message: "front matter is not a YAML mapping; indexed as text", line: 1)
                    )
                case .tooComplex(let why):
                    document.diagnostics.append(
                        Diagnostic(
                            path: path, code: .frontMatterTooComplex,
                            message: "\(why); indexed as text", line: 1))
                case .invalid(let why, let line):
                    document.diagnostics.append(
                        Diagnostic(
                            path: path, code: .malformedFrontMatter,
                            message: "front matter is not valid YAML (\(why)); indexed as text",
                            line: line.map { $0 + 1 }))
                }
            }
        }
        let outline = MarkdownParser.outline(of: String(body))
        let hadTitle =
            document.title != fileTitle(path) || document.metadata.contains { $0.key == "title" }
        if !hadTitle, let h1 = outline.headings.first(where: { $0.level == 1 }), !h1.text.isEmpty {
            document.title = h1.text
        }
        var tagKeys = Set(document.tags.map { $0.lowercased() })
        for tag in outline.tags where tagKeys.insert(tag.lowercased()).inserted {
            document.tags.append(tag)
        }
        document.headings = outline.headings.map {
            DocumentHeading(level: $0.level, text: $0.text, line: $0.line + lineOffset)
        }
        document.links = outline.links.map {
            DocumentLink(
                kind: $0.kind, target: $0.target, text: $0.text, line: $0.line + lineOffset)
        }
        document.sections = markdownSections(outline: outline, lineOffset: lineOffset)
        return document
    }

    /// One section per heading (plus the text before the first heading), each split
    /// further when it is long.
    static func markdownSections(outline: MarkdownOutline, lineOffset: Int) -> [DocumentSection] {
        var sections: [DocumentSection] = []
        let lines = outline.lines
        let firstHeadingLine = outline.headings.first?.line ?? (lines.count + 1)
        let preamble = lines[0..<min(lines.count, firstHeadingLine - 1)]
        sections += SectionSplitter.split(
            lines: preamble, firstLine: 1 + lineOffset, heading: "", level: 0, keepEmpty: false)
        for (i, heading) in outline.headings.enumerated() {
            let start = heading.line - 1
            let end =
                i + 1 < outline.headings.count ? outline.headings[i + 1].line - 1 : lines.count
            guard start < end, start < lines.count else {
                sections.append(
                    DocumentSection(
                        heading: heading.text, level: heading.level,
                        line: heading.line + lineOffset, text: "", lineAligned: true))
                continue
            }
            sections += SectionSplitter.split(
                lines: lines[start..<min(end, lines.count)], firstLine: heading.line + lineOffset,
                heading: heading.text, level: heading.level, keepEmpty: true)
        }
        return sections
    }

    private static func dropLines(_ count: Int, from text: Substring) -> Substring {
        var remaining = count
        var index = text.startIndex
        let utf8 = text.utf8
        var u = utf8.startIndex
        while remaining > 0, u < utf8.endIndex {
            if utf8[u] == 0x0A { remaining -= 1 }
            u = utf8.index(after: u)
        }
        index = u
        return text[index...]
    }
}
