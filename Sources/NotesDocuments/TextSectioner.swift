import Foundation
import NotesCore

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
