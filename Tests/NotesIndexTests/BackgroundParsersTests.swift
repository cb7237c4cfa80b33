import Foundation
import Testing

@testable import NotesIndex

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct BackgroundParsersTests {
    /// Counts and priorities seen by the iterations.
    final class Record: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var calls: [Int: Int] = [:]
        private(set) var niceness: Set<Int32> = []
        func note(_ i: Int, nice: Int32) {
            lock.lock()
            calls[i, default: 0] += 1
            niceness.insert(nice)
            lock.unlock()
        }
    }

    @Test(arguments: [0, 1, 2, 3, 1_000])
    func everyIterationRunsOnceBelowTheCallersPriority(count: Int) {
        let before = getpriority(__priority_which_t(0), 0)
        for threads in 1...4 {
            let record = Record()
            BackgroundParsers.perform(iterations: count, threads: threads) { i in
                record.note(i, nice: getpriority(__priority_which_t(0), 0))
            }
            #expect(record.calls.count == count)
            #expect(record.calls.values.allSatisfy { $0 == 1 })
            if count > 1 {
                // Worker threads lowered their own priority; a single iteration runs here.
                #expect(record.niceness == [BackgroundParsers.niceness])
            }
        }
        // The calling thread (the one that will write) keeps its priority.
        #expect(getpriority(__priority_which_t(0), 0) == before)
    }
}
