import Foundation
import NotesCore
import Testing

@Suite struct TextLinesTests {
    @Test func splitsLFAndCRLFAlike() {
        #expect("a\r\nb\r\nc".lines() == ["a", "b", "c"])
        #expect("a\nb\n".lines() == ["a", "b", ""])
        #expect("a\r\n\r\nb".lines() == ["a", "", "b"])
        #expect("".lines() == [""])
        #expect("é\r\n😀".lines() == ["é", "😀"])
    }
}

@Suite struct ByteLevelTextTests {
    /// Spaces Foundation's `.whitespaces` knows beyond ASCII, and characters it does not.
    static let pieces = [
        " ", "\t", "\u{00A0}", "\u{3000}", "\u{2009}", "a", "é", "😀", "#", "x y", "\n", "\r\n",
    ]

    @Test func trimmingBlanksMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...6, using: &generator)).map { _ in
                Self.pieces.randomElement(using: &generator)!
            }.joined()
            let line = Substring(text)
            #expect(
                line.trimmingBlanks() == line.trimmingCharacters(in: .whitespaces),
                "\(text.unicodeScalars.map { $0.value })")
        }
    }

    @Test func lastPathSegmentIsWhatFollowsTheLastSlash() {
        #expect("a/b/c.md".lastPathSegment == "c.md")
        #expect("c.md".lastPathSegment == "c.md")
        #expect("dir/".lastPathSegment == "")
        #expect("é/😀.txt".lastPathSegment == "😀.txt")
        #expect(FileFormat(path: "Notes.d/readme") == .other)
        #expect(FileFormat(path: "a/.md") == .other)
        #expect(FileFormat(path: "a/B.MarkDown") == .markdown)
        #expect(FileFormat(path: "x.tar.txt") == .text)
        #expect(DocumentKind(path: "Research/a.md") == .research)
        #expect(DocumentKind(path: "research.md") == .note)
        #expect(DocumentKind(path: "JOURNAL/2026/x.md") == .journal)
        #expect(DocumentKind(path: "Context.md") == .context)
        #expect(DocumentKind(path: "a/context.md") == .note)
    }
}
