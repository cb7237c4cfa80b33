import CCmark
import CMarkdownArena
import Foundation
import NotesCore

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
