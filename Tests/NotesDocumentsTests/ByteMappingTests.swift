import NotesTestSupport
import Testing

@testable import NotesDocuments

/// `mappingBytes` (code-span blanking, link text on one line) against the generic
/// `utf8.map` it replaced.
@Suite struct ByteMappingTests {
    @Test func mappingBytesEqualsUTF8Map() {
        var random = SeededGenerator(seed: 11)
        let pieces = ["a", " ", "\n", "\r\n", "\r", "é", "鯨", "🐋", "`code`", "#tag", "[[x]]", ""]
        for _ in 0..<3_000 {
            var text = ""
            for _ in 0..<Int.random(in: 0..<20, using: &random) {
                text += pieces.randomElement(using: &random)!
            }
            let blanked = String(
                decoding: text.utf8.map { $0 == 0x0A ? 0x0A : 0x20 }, as: UTF8.self)
            #expect(text.mappingBytes { $0 == 0x0A ? 0x0A : 0x20 } == blanked)
            #expect(text.mappingBytes { $0 == 0x0A ? 0x0A : 0x20 }.utf8.count == text.utf8.count)
            let oneLine = String(
                decoding: text.utf8.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 }, as: UTF8.self)
            #expect(text.replacingNewlines() == oneLine)
        }
        #expect("".mappingBytes { _ in 0x20 } == "")
    }
}
