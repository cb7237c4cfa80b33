import CCurl
import Foundation
import Synchronization

/// Set from anywhere (a signal handler's queue, say) to stop a transfer in progress: curl
/// checks it at least once a second and on every chunk received.
public final class Cancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    public func cancel() { flag.store(true, ordering: .relaxed) }
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }
}
