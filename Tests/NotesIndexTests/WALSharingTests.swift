import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// The index keeps its write-ahead log between processes (``WALSharing``): a command that
/// only reads must write nothing, and the log must stay short without losing a write.
@Suite struct WALSharingTests {
    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func openingAndSearchingAnUnchangedIndexWritesNothing() throws {
        let fixture = IndexFixture(files: ["whale.md": "# Whale\n\nThe white whale.\n"])
        let database = fixture.dir.path + "/index/index.sqlite"
        // Files saved within the last 2 s are stored as unverified and re-read (and their
        // rows rewritten) by every refresh until they are older.
        let past = Date().addingTimeInterval(-3600)
        for file in try FileManager.default.subpathsOfDirectory(atPath: fixture.root) {
            try FileManager.default.setAttributes(
                [.modificationDate: past], ofItemAtPath: fixture.root + "/" + file)
        }
        do {
            // Likewise folders changed within the last 2 s: they are listed again, and
            // stamped by the first refresh after that (``FolderStamps``). Settle them here.
            let index = try fixture.open()
            index.folderTrustDelay.withLock { $0 = 0.03 }
            _ = try index.refresh()
            usleep(60_000)
            _ = try index.refresh()
        }
        let before = (bytes(database), bytes(database + "-wal"))
        #expect(before.1 != nil, "the log is kept after the last connection closes")
        for _ in 0..<2 {
            let hits = try fixture.search("whale")
            #expect(hits.hits.map(\.path) == ["whale.md"])
        }
        // Before: each open wrote a throwaway transaction into a new log and each close
        // checkpointed it into the database, so both files changed.
        #expect(bytes(database) == before.0)
        #expect(bytes(database + "-wal") == before.1)
    }

    @Test func aLongLogIsCompactedWhenTheIndexIsLetGoAndNothingIsLost() throws {
        // Under the fresh-build threshold, so every row goes through the log.
        let paragraph = (0..<120).map { "word\($0) sentence about ships and sails" }.joined(
            separator: " ")
        var files: [String: String] = [:]
        for i in 0..<300 { files["notes/n\(i).md"] = "# Note \(i)\n\nmarker\(i) \(paragraph)\n" }
        let fixture = IndexFixture(files: files, filler: 0)
        let log = fixture.dir.path + "/index/index.sqlite-wal"
        var largest = 0
        do {
            let index = try fixture.refreshed()
            largest = WALSharing.size(of: log)
            _ = index
        }
        #expect(largest > WALSharing.threshold, "the test must write a long log (\(largest) bytes)")
        // Left behind: one small transaction, so the next process finds a log to read.
        let left = WALSharing.size(of: log)
        #expect(left > 0 && left <= 64 * 1024, "log left: \(left) bytes")
        // Everything written is in the database or the log.
        let queue = try DatabaseQueue(
            path: fixture.dir.path + "/index/index.sqlite", configuration: .withTokenReplay)
        let counts = try queue.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT count(*) FROM files"),
                try Int.fetchOne(db, sql: "SELECT count(*) FROM fts WHERE fts MATCH 'marker299'")
            )
        }
        #expect(counts.0 == 300)
        #expect(counts.1 == 1)
    }

    @Test func aLongLogLeftByAKilledProcessIsCompactedByTheNextOne() throws {
        let fixture = IndexFixture(files: ["whale.md": "# Whale\n\nThe white whale.\n"])
        let path = fixture.dir.path + "/index/index.sqlite"
        do { _ = try fixture.refreshed() }
        // A writer that keeps the log and never checkpoints, like a process killed mid-way.
        var configuration = Configuration.withTokenReplay
        configuration.prepareDatabase { db in
            try WALSharing.keep(db)
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        }
        do {
            let writer = try DatabasePool(path: path, configuration: configuration)
            try writer.write { db in
                try db.execute(sql: "CREATE TABLE ballast (text TEXT)")
                for i in 0..<600 {
                    try db.execute(
                        sql: "INSERT INTO ballast VALUES (?)",
                        arguments: [String(repeating: "\(i % 10)", count: 4000)])
                }
            }
        }
        #expect(WALSharing.size(of: path + "-wal") > WALSharing.threshold)
        let index = try fixture.open()
        #expect(WALSharing.size(of: path + "-wal") <= 64 * 1024)
        #expect(try fixture.search("whale", index).hits.count == 1)
        #expect(
            try index.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM ballast") }
                == 600)
    }
}
