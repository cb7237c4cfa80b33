import Foundation

/// The chunks of paths, their stats, and the state the helpers wait on. The helper threads
/// hold this (not the ``StatPrefetch``), so a dropped prefetch can still close it.
final class StatQueue: @unchecked Sendable {
    private let rootFD: Int32
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var chunks: [StatPaths] = []
    private var stats: [[StatFacts?]] = []
    private var folderChunk: Int?
    private var taken = 0
    private var finished = 0
    private var closed = false
    private var cancelled = false

    init(rootFD: Int32) {
        self.rootFD = rootFD
    }

    deinit {
        if rootFD >= 0 { close(rootFD) }
    }

    func add(_ paths: [String], folders: Bool) {
        add(.strings(paths), folders: folders)
    }

    func add(_ paths: StatPaths, folders: Bool) {
        condition.lock()
        if folders { folderChunk = chunks.count }
        chunks.append(paths)
        stats.append([])
        condition.signal()
        condition.unlock()
    }

    /// No more chunks will come; `cancelling` also drops the ones not yet started.
    func finishAdding(cancelling: Bool) {
        condition.lock()
        closed = true
        if cancelling { cancelled = true }
        condition.broadcast()
        condition.unlock()
    }

    /// Stats chunks until none is left and no more will come.
    func help() {
        while let (index, paths) = next() {
            let facts = Self.lstat(paths, at: rootFD)
            condition.lock()
            stats[index] = facts
            finished += 1
            if finished == chunks.count { condition.broadcast() }
            condition.unlock()
        }
    }

    /// Every chunk's stats once all are in: folders, then the files in order.
    func collected() -> (folders: [StatFacts?], files: [StatFacts?]) {
        condition.lock()
        defer { condition.unlock() }
        while finished < chunks.count { condition.wait() }
        var files: [StatFacts?] = []
        files.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
        for (index, chunk) in stats.enumerated() where index != folderChunk { files += chunk }
        return (folderChunk.map { stats[$0] } ?? [], files)
    }

    private func next() -> (Int, StatPaths)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if cancelled { return nil }
            if taken < chunks.count {
                taken += 1
                return (taken - 1, chunks[taken - 1])
            }
            if closed { return nil }
            condition.wait()
        }
    }

    private static func lstat(_ paths: StatPaths, at rootFD: Int32) -> [StatFacts?] {
        var facts: [StatFacts?] = []
        facts.reserveCapacity(paths.count)
        var info = stat()
        func lstat(_ path: UnsafePointer<CChar>) -> StatFacts? {
            guard rootFD >= 0 else { return nil }
            // "" is the workspace itself.
            let code =
                path[0] == 0
                ? fstatat(rootFD, ".", &info, AT_SYMLINK_NOFOLLOW)
                : fstatat(rootFD, path, &info, AT_SYMLINK_NOFOLLOW)
            return code == 0 ? StatFacts(info) : nil
        }
        switch paths {
        case .strings(let paths):
            for path in paths { facts.append(path.withCString(lstat)) }
        case .pointers(let paths, let owner):
            withExtendedLifetime(owner) {
                for path in paths { facts.append(lstat(path)) }
            }
        }
        return facts
    }
}
