import Foundation
import NotesTestSupport
import Testing

@testable import NotesCore

@Suite struct StatPrefetchTests {
    /// A workspace of `count` files in a few folders, plus a symlink and a missing name.
    func workspace(_ count: Int) throws -> (TemporaryDirectory, folders: [String], files: [String])
    {
        let tmp = TemporaryDirectory()
        let folders = ["", "a", "a/b", "c"]
        for folder in folders.dropFirst() {
            try FileManager.default.createDirectory(
                atPath: tmp.path + "/" + folder, withIntermediateDirectories: true)
        }
        var files: [String] = []
        for i in 0..<count {
            let path =
                (folders[i % folders.count].isEmpty ? "" : folders[i % folders.count] + "/")
                + "note-\(i).md"
            try String(repeating: "x", count: i).write(
                toFile: tmp.path + "/" + path, atomically: false, encoding: .utf8)
            files.append(path)
        }
        symlink(tmp.path + "/a", tmp.path + "/c/link")
        return (tmp, folders + ["c/link"], files + ["c/missing.md", "c/link"])
    }

    func expectMatchesLstat(_ root: String, _ paths: [String], _ facts: [StatFacts?]) {
        #expect(facts.count == paths.count)
        for (path, fact) in zip(paths, facts) {
            var info = stat()
            if lstat(root + "/" + path, &info) == 0 {
                #expect(fact?.inode == UInt64(info.st_ino), "\(path)")
                #expect(fact?.size == Int(info.st_size), "\(path)")
                #expect(fact?.mode == UInt32(info.st_mode), "\(path)")
            } else {
                #expect(fact == nil, "\(path)")
            }
        }
    }

    /// Chunks given while helpers already run come back in the order given, folders apart,
    /// symlinks not followed, missing names nil, whatever the number of helpers (0: the
    /// reader stats everything itself in `results()`).
    @Test(arguments: [0, 1, 3])
    func statsComeBackInTheOrderGiven(helpers: Int) throws {
        let (tmp, folders, files) = try workspace(3 * StatPrefetch.chunkSize + 17)
        let prefetch = StatPrefetch(root: tmp.path, helpers: helpers)
        prefetch.statFolders(folders)
        for start in stride(from: 0, to: files.count, by: StatPrefetch.chunkSize) {
            prefetch.statFiles(
                Array(files[start..<min(start + StatPrefetch.chunkSize, files.count)]))
        }
        let results = prefetch.results()
        expectMatchesLstat(tmp.path, folders, results.folders)
        expectMatchesLstat(tmp.path, files, results.files)
        #expect(results.folders[0]?.isFolder == true)
        #expect(results.files.last??.isRegularFile == false)  // c/link, a symlink to a folder
        #expect(results.files[results.files.count - 2] == nil)  // c/missing.md
        // Asked again: the same answer, without waiting on anything.
        #expect(prefetch.results().files.map { $0?.inode } == results.files.map { $0?.inode })
    }

    /// A prefetch dropped before its results were read (an index read that failed halfway)
    /// lets its helper threads stop: they hold its queue, which is freed once all have gone.
    @Test func helpersOfADroppedPrefetchStop() throws {
        let (tmp, _, files) = try workspace(200)
        weak var queue: StatQueue?
        do {
            let prefetch = StatPrefetch(root: tmp.path, helpers: 2)
            prefetch.statFiles(files)
            queue = prefetch.queue
            #expect(queue != nil)
        }
        let deadline = Date().addingTimeInterval(10)
        while queue != nil && Date() < deadline { usleep(1_000) }
        #expect(queue == nil, "a helper thread is still waiting for work")
    }

    /// `all` (used when nothing was prefetched) gives the same stats.
    @Test func allStatsEverythingAtOnce() throws {
        let (tmp, folders, files) = try workspace(100)
        let results = StatPrefetch.all(root: tmp.path, folders: folders, files: files).results()
        expectMatchesLstat(tmp.path, folders, results.folders)
        expectMatchesLstat(tmp.path, files, results.files)
    }
}
