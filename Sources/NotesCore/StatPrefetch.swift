import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `lstat`s of the known folders and files, made while the refresh is still reading the rest
/// of them from the index (the read and the stats overlap instead of following each other).
/// Folders are given first, then files in chunks, in order.
///
/// Helper threads start when the prefetch is made, so their start-up overlaps the index
/// read; while the reader adds chunks they stat them on the other cores, and ``results()``
/// makes the calling thread stat whatever is left alongside them instead of waiting. With
/// one helper fewer than there are cores, every core stats and none is shared by two threads.
public final class StatPrefetch: @unchecked Sendable {
    /// Held by the helper threads too: it is freed when the last of them has stopped.
    let queue: StatQueue

    /// Paths are looked up relative to the workspace `root`.
    public init(root: String, helpers: Int = StatPrefetch.helperCount) {
        queue = StatQueue(
            rootFD: open(root.isEmpty ? "/" : root, O_RDONLY | O_DIRECTORY | O_CLOEXEC))
        for _ in 0..<max(helpers, 0) {
            let queue = queue
            let thread = Thread { queue.help() }
            thread.name = "notes-stat"
            thread.start()
        }
    }

    /// A prefetch dropped unread (an error while reading the index) lets its helpers go.
    deinit {
        queue.finishAdding(cancelling: true)
    }

    /// Starts statting the known folders (call once, before any files).
    public func statFolders(_ paths: [String]) {
        queue.add(paths, folders: true)
    }

    /// Starts statting the next chunk of known files.
    public func statFiles(_ paths: [String]) {
        queue.add(paths, folders: false)
    }

    /// Starts statting folders, then files, given as NUL-terminated paths in memory that
    /// `owner` keeps alive (a layout snapshot's buffer: no `String` is made for a stat).
    public func stat(
        folders: [UnsafePointer<CChar>], files: [UnsafePointer<CChar>], keeping owner: AnyObject
    ) {
        queue.add(.pointers(folders, owner), folders: true)
        for start in stride(from: 0, to: files.count, by: Self.chunkSize) {
            queue.add(
                .pointers(Array(files[start..<min(start + Self.chunkSize, files.count)]), owner),
                folders: false)
        }
    }

    /// Stops the helpers without waiting for them (a prefetch that turned out not to be needed).
    public func cancel() {
        queue.finishAdding(cancelling: true)
    }

    /// Stats what is still queued on this thread too, waits for the helpers, and returns
    /// every stat (nil: no such entry), folders and files in the order given.
    func results() -> (folders: [StatFacts?], files: [StatFacts?]) {
        queue.finishAdding(cancelling: false)
        queue.help()
        return queue.collected()
    }

    /// Stats `folders` and `files` now, on every core.
    static func all(root: String, folders: [String], files: [String]) -> StatPrefetch {
        let prefetch = StatPrefetch(root: root)
        prefetch.statFolders(folders)
        for start in stride(from: 0, to: files.count, by: chunkSize) {
            prefetch.statFiles(Array(files[start..<min(start + chunkSize, files.count)]))
        }
        return prefetch
    }

    /// Files per chunk handed to a thread.
    public static let chunkSize = 512

    /// Helper threads besides the reader: one fewer than the cores, at least one.
    public static let helperCount = max(ProcessInfo.processInfo.activeProcessorCount - 1, 1)
}
