import NotesTestSupport
import Testing

@testable import NotesIndex

/// ``FTSText/prepare(_:)`` scans bytes (eight ASCII bytes at a time); this compares it with
/// the rule written scalar by scalar, on random mixes of ASCII, other UTF-8 and CJK.
@Suite struct FTSTextTests {
    static func reference(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousCJK = false
        for scalar in text.unicodeScalars {
            let cjk = FTSText.isCJK(scalar.value)
            if cjk && previousCJK { out.append(FTSText.separator) }
            out.append(scalar)
            previousCJK = cjk
        }
        return String(out)
    }

    @Test func preparedTextSeparatesExactlyTheAdjacentCJKPairs() {
        var random = SeededGenerator(seed: 7)
        let pieces = [
            "a", "b ", "1234567", "the whale ", "é", "—", "’", "\u{200B}", "鯨", "白", "かな", "カ", "한",
            "ｗ", "𠀀", "\n",
        ]
        var changed = 0
        for _ in 0..<5_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0..<24, using: &random) {
                text += pieces.randomElement(using: &random)!
            }
            let prepared = FTSText.prepare(text)
            #expect(prepared == Self.reference(text), "\(text.debugDescription)")
            if prepared != text { changed += 1 }
        }
        #expect(changed > 500)
        #expect(FTSText.prepare("abcdefgh鯨白abcdefgh") == "abcdefgh鯨\u{200B}白abcdefgh")
        #expect(FTSText.prepare("abcdefg鯨白") == "abcdefg鯨\u{200B}白")
    }
}
