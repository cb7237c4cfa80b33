import Foundation
import NotesIndex
import Testing

@testable import NotesTools

/// The files a session's answers quote from are kept by path and version: a large note
/// found search after search is read once.
@Suite struct QuotedFilesTests {
    func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x61, count: count)
        for i in stride(from: 4095, to: count, by: 4096) { bytes[i] = 0x0A }
        return bytes
    }

    @Test func aLargeNoteIsReadOnceForEveryAnswerThatQuotesIt() {
        let files = QuotedFiles()
        var reads = 0
        let note = bytes(5 * 1024 * 1024)
        for _ in 0..<3 {
            let file = files.file("Research/huge-note.md", version: "v1") {
                reads += 1
                return note
            }
            #expect(file?.bytes.count == note.count)
        }
        #expect(reads == 1)
        // A new version is read again.
        _ = files.file("Research/huge-note.md", version: "v2") {
            reads += 1
            return note
        }
        #expect(reads == 2)
    }

    @Test func aFileOverHalfTheBudgetIsNotKeptAndTheBudgetHolds() {
        let files = QuotedFiles()
        var reads = 0
        let big = bytes(QuotedFiles.budget / 2 + 1)
        for _ in 0..<2 {
            _ = files.file("big.txt", version: "v1") {
                reads += 1
                return big
            }
        }
        #expect(reads == 2)
        // Files of two fifths of the budget: the third makes room by letting the least
        // recently used go, down to three quarters of the budget (both others).
        let part = bytes(QuotedFiles.budget * 2 / 5)
        func quote(_ name: String) {
            _ = files.file(name, version: "v1") {
                reads += 1
                return part
            }
        }
        for name in ["a", "b", "b", "c"] { quote(name) }
        #expect(reads == 2 + 3)
        #expect(files.keptBytes == part.count)
        #expect(files.keptBytes <= QuotedFiles.budget * 3 / 4)
        quote("c")
        quote("a")
        #expect(reads == 2 + 4)
    }
}
