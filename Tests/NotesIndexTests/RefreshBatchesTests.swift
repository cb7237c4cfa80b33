import NotesTestSupport
import Testing

@testable import NotesIndex

/// How a refresh splits its files into parse batches (``NoteIndex/batches(sizes:)``).
@Suite struct RefreshBatchesTests {
    func check(_ sizes: [Int]) -> [Range<Int>] {
        let ranges = NoteIndex.batches(sizes: sizes)
        // Every file exactly once, in order, no empty batch.
        #expect(ranges.first?.lowerBound ?? 0 == 0)
        #expect(ranges.last?.upperBound ?? 0 == sizes.count)
        for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
        #expect(ranges.allSatisfy { !$0.isEmpty })
        for (i, range) in ranges.enumerated() {
            let bytes = sizes[range].reduce(0, +)
            let (files, limit) = i == 0 ? (64, 1 << 20) : (512, 8 << 20)
            #expect(range.count <= files)
            #expect(
                bytes <= limit || range.count == 1,
                "batch \(i): \(range.count) files, \(bytes) bytes")
        }
        return ranges
    }

    @Test func batchesStartSmallStayBoundedAndShrinkAtTheEnd() {
        #expect(check([]).isEmpty)
        #expect(check([100]) == [0..<1])
        // Many small notes: a 64-file first batch, full batches, then ever smaller ones.
        let notes = check(Array(repeating: 2_000, count: 10_000))
        #expect(notes.first == 0..<64)
        #expect(notes.contains { $0.count == 512 })
        #expect(notes.last!.count <= 16)
        #expect(notes.count < 60)
        // Books: bounded by bytes; the last batch holds about one book.
        var random = SeededGenerator(seed: 3)
        let books = check((0..<52).map { _ in Int.random(in: 100_000..<2_000_000, using: &random) })
        #expect(books.last!.count <= 2)
        // A file over the byte limit is a batch of its own, wherever it is.
        let mixed = check(
            [10, 30 << 20, 10, 10] + Array(repeating: 1_000, count: 100) + [20 << 20])
        #expect(mixed[1] == 1..<2)
        #expect(mixed.last == 104..<105)
    }
}
