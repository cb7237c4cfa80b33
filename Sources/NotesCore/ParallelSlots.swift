import Foundation

/// Results of `DispatchQueue.concurrentPerform`: one slot per iteration, each filled by
/// exactly one iteration, plus a running total (e.g. seconds spent) across them. Used by
/// the parallel walk and the refresh's parsing.
public final class ParallelSlots<Value>: @unchecked Sendable {
    private var slots: [Value?]
    private var sum = 0.0
    private let lock = NSLock()

    public init(count: Int) { slots = Array(repeating: nil, count: count) }

    /// Fills slot `index`, adding `amount` to the total.
    public func set(_ index: Int, _ value: Value, adding amount: Double = 0) {
        lock.lock()
        slots[index] = value
        sum += amount
        lock.unlock()
    }

    /// The filled slots in iteration order.
    public var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return slots.compactMap { $0 }
    }

    /// The sum of the amounts added with the values.
    public var total: Double {
        lock.lock()
        defer { lock.unlock() }
        return sum
    }
}
