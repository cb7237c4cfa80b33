/// The first few of many items in an order, kept in a short sorted list: most items fall
/// below its last entry at one comparison, where sorting them all would cost more than the
/// few are worth (thousands of files match a common word; a page shows ten).
enum ShortList {
    /// The first `count` of `items` in the order `before`, in that order.
    static func first<T>(_ count: Int, of items: [T], by before: (T, T) -> Bool) -> [T] {
        guard count > 0 else { return [] }
        var kept: [T] = []
        kept.reserveCapacity(count + 1)
        for item in items {
            if kept.count == count, let last = kept.last, !before(item, last) { continue }
            var low = 0
            var high = kept.count
            while low < high {
                let middle = (low + high) / 2
                if before(kept[middle], item) { low = middle + 1 } else { high = middle }
            }
            kept.insert(item, at: low)
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }
}
