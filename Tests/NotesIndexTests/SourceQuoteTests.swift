import Foundation
import Testing

@testable import NotesIndex

/// A snippet quoted as the file has it (issue 32, item 10): the exact part of its line,
/// found in the bytes however deep the line is, cut around the match at spaces.
@Suite struct SourceQuoteTests {
    func snippet(_ text: String, line: Int, match: String) -> Snippet {
        let scalars = Array(text.unicodeScalars)
        let word = Array(match.unicodeScalars)
        let at = (0...(scalars.count - word.count)).first {
            Array(scalars[$0..<($0 + word.count)]) == word
        }
        return Snippet(
            section: "", line: line, text: text, spans: at.map { [[$0, $0 + word.count]] } ?? [])
    }

    @Test func markupTheIndexLeftOutIsQuotedAsWritten() throws {
        let file = QuotedFile(
            Array("# Essex\n\n  The whaler **Essex** sank in 1820.\r\nNext.\n".utf8))
        let quote = try #require(
            SourceQuote.quote(
                snippet("The whaler Essex sank in 1820.", line: 3, match: "Essex"), in: file,
                maxLength: 120))
        #expect(
            quote == SourceQuote(line: 3, text: "The whaler **Essex** sank in 1820.", unique: true))
    }

    @Test func lineStartsAreFoundDeepInABigFile() {
        // Lines of every length (some longer than the 32 bytes counted at a time), LF and CRLF.
        var text = ""
        var starts: [Int] = []
        for n in 0..<5000 {
            starts.append(text.utf8.count)
            text += String(repeating: "x", count: (n * 7919) % 97) + (n % 3 == 0 ? "\r\n" : "\n")
        }
        let file = QuotedFile(Array(text.utf8))
        #expect(file.checkpoints.count == 5)
        file.bytes.withUnsafeBufferPointer { bytes in
            for line in [1, 2, 33, 1024, 1025, 1026, 2049, 4999, 5000] {
                let known = file.checkpoint(before: line)
                #expect(
                    SourceQuote.start(ofLine: line, in: bytes, from: known) == starts[line - 1],
                    "line \(line)")
            }
            // The line after the last newline starts at the end; none after it.
            #expect(SourceQuote.start(ofLine: 5001, in: bytes) == bytes.count)
            #expect(SourceQuote.start(ofLine: 5002, in: bytes) == nil)
        }
    }

    @Test func aLongLineIsCutAroundTheMatchAtSpaces() throws {
        let words = (0..<60).map { "word\($0)" }.joined(separator: " ")
        let line = "\(words) where the quokka sleeps \(words)"
        let file = QuotedFile(Array("# Long\n\n\(line)\n".utf8))
        let quote = try #require(
            SourceQuote.quote(
                snippet("…where the quokka sleeps…", line: 3, match: "quokka"), in: file,
                maxLength: 120))
        #expect(quote.text.count <= 120 && quote.text.contains("quokka") && quote.unique)
        let range = try #require(line.range(of: quote.text))
        #expect(line[line.index(before: range.lowerBound)] == " ")
        #expect(line[range.upperBound] == " ")
    }

    @Test func aRepeatedLineIsWidenedThenSaidToRepeat() throws {
        let long = (0..<40).map { "w\($0)" }.joined(separator: " ")
        // The 120-character window repeats, the whole line does not: the whole line is quoted.
        let file = QuotedFile(
            Array("\(long) quokka \(long) one\n\n\(long) quokka \(long) two\n".utf8))
        let widened = try #require(
            SourceQuote.quote(snippet("quokka", line: 3, match: "quokka"), in: file, maxLength: 120)
        )
        #expect(widened.unique && widened.text.hasSuffix("two"))
        let twice = QuotedFile(Array("The quokka.\n\nThe quokka.\n".utf8))
        let repeated = try #require(
            SourceQuote.quote(
                snippet("The quokka.", line: 3, match: "quokka"), in: twice, maxLength: 120))
        #expect(repeated == SourceQuote(line: 3, text: "The quokka.", unique: false))
    }

    @Test func aChatMessageIsQuotedFromTheLineThatHoldsItsWords() throws {
        let json =
            "{\n  \"messages\": [\n    {\n      \"content\": \"Where is the quokka?\",\n      \"role\": \"user\"\n    }\n  ]\n}\n"
        let quote = try #require(
            SourceQuote.quote(
                snippet("Where is the quokka?", line: 5, match: "quokka"),
                in: QuotedFile(Array(json.utf8)), maxLength: 120))
        #expect(quote.line == 4)
        #expect(quote.text == "\"content\": \"Where is the quokka?\",")
    }

    @Test func whatCannotBeQuotedIsNil() {
        // Words not there (the file changed since), a line that is not UTF-8, a line past the end.
        let file = QuotedFile(Array("# A\n\nNothing here.\n".utf8))
        #expect(
            SourceQuote.quote(snippet("quokka", line: 3, match: "quokka"), in: file, maxLength: 120)
                == nil)
        let latin1 = QuotedFile(Array("# A\n\nthe quokka caf".utf8) + [0xE9, 0x0A])
        #expect(
            SourceQuote.quote(
                snippet("the quokka café", line: 3, match: "quokka"), in: latin1, maxLength: 120)
                == nil)
        #expect(
            SourceQuote.quote(
                snippet("quokka", line: 90, match: "quokka"), in: file, maxLength: 120) == nil)
    }
}
