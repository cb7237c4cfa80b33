import Foundation
import NotesCore

/// Cuts line-aligned text into sections of a few KB at blank lines, so that a hit in a
/// 1 MB book points at its place and snippets stay cheap (docs/spec.md §3.2).
enum SectionSplitter {
    /// Aim for sections of about this many bytes (cut at the next blank line).
    static let targetBytes = 8 * 1024
    /// Cut even without a blank line once a section reaches this size.
    static let hardLimitBytes = 16 * 1024

    /// Splits `lines` (line k is file line `firstLine + k`) into chunks titled `heading`.
    /// Chunks with no visible text are dropped unless `keepEmpty`.
    static func split(
        lines: ArraySlice<String>, firstLine: Int, heading: String, level: Int, keepEmpty: Bool
    ) -> [DocumentSection] {
        var sections: [DocumentSection] = []
        var chunkStart = lines.startIndex
        var bytes = 0
        var hasText = false
        func flush(upTo end: Int) {
            guard end > chunkStart else { return }
            if hasText || (keepEmpty && sections.isEmpty) {
                let text = joinLines(lines[chunkStart..<end])
                sections.append(
                    DocumentSection(
                        heading: heading, level: level,
                        line: firstLine + (chunkStart - lines.startIndex), text: text,
                        lineAligned: true, isContinuation: chunkStart != lines.startIndex))
            }
            chunkStart = end
            bytes = 0
            hasText = false
        }
        for index in lines.indices {
            let line = lines[index]
            let blank = line.allSatisfy { $0 == " " || $0 == "\t" || $0 == "\r" }
            if (blank && bytes >= targetBytes) || bytes >= hardLimitBytes { flush(upTo: index) }
            bytes += line.utf8.count + 1
            if !blank { hasText = true }
        }
        flush(upTo: lines.endIndex)
        if sections.isEmpty && keepEmpty {
            sections.append(
                DocumentSection(
                    heading: heading, level: level, line: firstLine, text: "", lineAligned: true))
        }
        return sections
    }

    /// `lines.joined(separator: "\n")` with the storage sized once (the generic `joined`
    /// was a tenth of indexing small notes).
    static func joinLines(_ lines: ArraySlice<String>) -> String {
        guard lines.count > 1 else { return lines.first ?? "" }
        var capacity = lines.count - 1
        for line in lines { capacity += line.utf8.count }
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var at = 0
            for index in lines.indices {
                if index != lines.startIndex {
                    buffer[at] = 0x0A
                    at += 1
                }
                let line = lines[index].utf8
                if let copied = line.withContiguousStorageIfAvailable({ bytes -> Int in
                    guard let base = bytes.baseAddress else { return 0 }
                    (buffer.baseAddress! + at).initialize(from: base, count: bytes.count)
                    return bytes.count
                }) {
                    at += copied
                } else {
                    for byte in line {
                        buffer[at] = byte
                        at += 1
                    }
                }
            }
            return at
        }
    }
}

/// Sections of a plain-text file: blank-line blocks of a few KB, with "CHAPTER"-style
/// lines (CHAPTER, BOOK, PART, ACT, SCENE, STAVE...) starting new sections titled by them.
enum TextSectioner {
    private static let chapterWords: Set<String> = [
        "chapter", "book", "part", "volume", "act", "scene", "stave", "canto", "letter",
        "prologue", "epilogue", "preface", "introduction", "etymology", "extracts", "appendix",
        "contents",
    ]

    /// Whether `line` reads like a chapter title: short, after a blank line, starting with
    /// a chapter word in capitals or title case.
    static func isChapterLine(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        guard !trimmed.isEmpty, trimmed.utf8.count <= 80 else { return false }
        if trimmed.hasPrefix("*** START OF") || trimmed.hasPrefix("*** END OF") { return true }
        let word = trimmed.prefix { $0.isLetter }
        guard word.count >= 3, chapterWords.contains(word.lowercased()) else { return false }
        guard word.first!.isUppercase else { return false }
        let after = trimmed.dropFirst(word.count).first
        return after == nil || after == " " || after == "." || after == ":" || after == "\r"
    }

    static func sections(of text: String, firstLine: Int = 1) -> [DocumentSection] {
        let lines = text.lines().map(String.init)
        var sections: [DocumentSection] = []
        var start = 0
        var heading = ""
        var previousBlank = true
        // A table of contents is a run of chapter lines with little text between them: it
        // stays one section ("Contents") instead of a hundred one-line ones.
        var chapterLinesInSection = 0
        var textSinceChapterLine = 0
        var titlesInSection = Set<String>()
        func close(at end: Int) {
            let title = chapterLinesInSection >= 3 ? "Contents" : heading
            sections += SectionSplitter.split(
                lines: lines[start..<end], firstLine: firstLine + start, heading: title, level: 0,
                keepEmpty: false)
        }
        for (index, line) in lines.enumerated() {
            let blank = line.allSatisfy { $0 == " " || $0 == "\t" }
            let nextBlank =
                index + 1 >= lines.count || lines[index + 1].allSatisfy { $0 == " " || $0 == "\t" }
            if previousBlank && nextBlank && !blank && isChapterLine(Substring(line)) {
                let title = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(
                    separator: " ")
                // A chapter line coming round again is where the book itself starts.
                if !heading.isEmpty && textSinceChapterLine < 3 && !titlesInSection.contains(title)
                {
                    chapterLinesInSection += 1
                    titlesInSection.insert(title)
                } else {
                    close(at: index)
                    heading = title
                    titlesInSection = [title]
                    start = index
                    chapterLinesInSection = 1
                }
                textSinceChapterLine = 0
                previousBlank = false
                continue
            }
            if !blank { textSinceChapterLine += 1 }
            previousBlank = blank
        }
        close(at: lines.count)
        // Blank out title lines inside bodies so that a section's text is only its content.
        for i in sections.indices where !sections[i].heading.isEmpty {
            if let newline = sections[i].text.firstIndex(of: "\n"),
                isChapterLine(sections[i].text[..<newline])
            {
                sections[i].text = String(sections[i].text[newline...])
            } else if isChapterLine(Substring(sections[i].text)) {
                sections[i].text = ""
            }
        }
        return sections.filter { !$0.text.allSatisfy { $0 == "\n" || $0 == " " || $0 == "\t" } }
    }

    /// A Project Gutenberg style `Title:` line near the top, if any.
    static func declaredTitle(in text: String) -> String? {
        var count = 0
        for line in text.prefix(8192).lines() {
            count += 1
            if count > 80 { break }
            if line.hasPrefix("Title:") {
                let title = line.dropFirst(6).trimmingCharacters(in: .whitespacesAndNewlines)
                if !title.isEmpty { return title }
            }
        }
        return nil
    }
}
