import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a refresh's parse work on threads of its own, below normal priority, so the one
/// writer thread (the critical path of a large refresh) always has a core. With two cores,
/// two parsers and the writer at equal priority left the writer short of a core; parsers
/// that yield to it make full indexes faster (docs/performance-history.md). The threads
/// live for one batch: starting them is cheap, and a thread whose
/// priority was lowered is never handed back to a shared pool (so not dispatch's workers).
enum BackgroundParsers {
    /// The parse threads' nice value (on Linux it is a per-thread attribute).
    static let niceness: Int32 = 10

    /// Calls `body(i)` for every `i` in `0..<count` and returns when all calls are done:
    /// on up to `threads` new threads, or on the calling thread when there is one
    /// iteration (or no thread can be started).
    static func perform(
        iterations count: Int, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
        _ body: @escaping @Sendable (Int) -> Void
    ) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        let claims = Claims(count: count)
        let group = DispatchGroup()
        var started = 0
        for _ in 0..<max(1, min(threads, count)) {
            group.enter()
            let work = Work {
                // PRIO_PROCESS with id 0: this thread only (Linux); failure leaves it at 0.
                _ = setpriority(__priority_which_t(0), 0, niceness)
                while let index = claims.next() { body(index) }
                group.leave()
            }
            if work.startThread() { started += 1 } else { group.leave() }
        }
        // No thread could be started (a process at its thread limit): the work still gets
        // done, here. (Foundation's `Thread` would not say, and the wait would never end.)
        if started == 0 {
            while let index = claims.next() { body(index) }
        }
        group.wait()
    }

    /// A closure run on a new detached POSIX thread with the main thread's stack size
    /// (cmark and Yams recurse on deeply nested input).
    private final class Work {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }

        func startThread() -> Bool {
            let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
            pthread_attr_init(attributes)
            defer {
                pthread_attr_destroy(attributes)
                attributes.deallocate()
            }
            pthread_attr_setstacksize(attributes, 8 << 20)
            pthread_attr_setdetachstate(attributes, Int32(PTHREAD_CREATE_DETACHED))
            let context = Unmanaged.passRetained(self).toOpaque()
            var thread: pthread_t = 0
            let created = pthread_create(
                &thread, attributes,
                { context in
                    Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().run()
                    return nil
                }, context)
            if created != 0 { Unmanaged<Work>.fromOpaque(context).release() }
            return created == 0
        }
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
