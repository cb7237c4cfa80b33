import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a refresh's parse work on threads of its own, below normal priority, so the one
/// writer thread (the critical path of a large refresh) always has a core. With two cores,
/// two parsers and the writer at equal priority left the writer about two thirds of a core;
/// parsers that yield to it made full indexes 5–15% faster (docs/performance.md). The
/// threads live for one batch: starting them costs microseconds, and a thread whose
/// priority was lowered is never handed back to a shared pool.
enum BackgroundParsers {
    /// The parse threads' nice value (on Linux it is a per-thread attribute).
    static let niceness: Int32 = 10

    /// Calls `body(i)` for every `i` in `0..<count` and returns when all calls are done.
    /// One iteration runs on the calling thread; more run on up to `threads` new threads.
    static func perform(iterations count: Int, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                        _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        let claims = Claims(count: count)
        let group = DispatchGroup()
        for _ in 0..<max(1, min(threads, count)) {
            group.enter()
            let thread = Thread {
                // PRIO_PROCESS with id 0: this thread only (Linux); failure leaves it at 0.
                _ = setpriority(__priority_which_t(0), 0, niceness)
                while let index = claims.next() { body(index) }
                group.leave()
            }
            // As much stack as the main thread and dispatch's workers get (cmark and Yams
            // recurse on deeply nested input).
            thread.stackSize = 8 << 20
            thread.start()
        }
        group.wait()
    }

    /// Hands out iteration numbers, each once.
    private final class Claims: @unchecked Sendable {
        private let count: Int
        private var taken = 0
        private let lock = NSLock()

        init(count: Int) { self.count = count }

        func next() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard taken < count else { return nil }
            taken += 1
            return taken - 1
        }
    }
}
