import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// Folder stamps let a refresh skip listing folders nothing was added to, removed from or
/// renamed in (``FolderStamp``). These tests change workspaces in every way a person, an
/// editor or a sync client does and check, after each refresh, that the index holds exactly
/// the files a full walk finds, with the versions of their bytes.
@Suite struct FolderStampTests {
    /// Stamps are trusted once a folder has been left alone this long; the tests wait
    /// twice that (``settle()``) instead of the real two seconds.
    static let trustDelay = 0.03

    func settle() { usleep(60_000) }

    /// Lets the changed folders settle and refreshes, so they carry trusted stamps again.
    func restamp(_ index: NoteIndex) throws {
        settle()
        _ = try index.refresh()
    }

    func open(_ fixture: IndexFixture) throws -> NoteIndex {
        let index = try fixture.open()
        index.folderTrustDelay.withLock { $0 = Self.trustDelay }
        return index
    }

    /// Indexes the fixture and refreshes until every folder carries a trusted stamp.
    func stamped(_ fixture: IndexFixture) throws -> NoteIndex {
        let index = try open(fixture)
        _ = try index.refresh()
        settle()
        _ = try index.refresh()  // lists the folders again, now old enough to stamp
        return index
    }

    var stampsAreUsedHere: Bool {
        FileScanner(root: NSTemporaryDirectory(), rules: IgnoreRules()).skipsUnchangedFolders
    }

    func expectIndexMatchesFiles(
        _ fixture: IndexFixture, _ index: NoteIndex, _ comment: String = ""
    ) throws {
        let listing = try index.listing(folder: "", recursive: true, glob: nil, sort: .path)
        let scan = FileScanner(workspace: try Workspace(root: fixture.root)).scan()
        #expect(listing.files.map(\.path) == scan.files.map(\.path).sorted(), "\(comment)")
        for entry in listing.files {
            let bytes = try FileBytes.read(path: fixture.root + "/" + entry.path, maxBytes: 1 << 30)
            #expect(entry.version == ContentVersion(of: bytes).short, "\(comment): \(entry.path)")
        }
    }

    func stamps(_ index: NoteIndex) throws -> [String: Int64] {
        let queue = try DatabaseQueue(path: index.databasePath)
        defer { try? queue.close() }
        return try queue.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT path, ctime_ns FROM folders"
                ).map { ($0[0] as String, $0[1] as Int64) })
        }
    }

    static let tree = [
        "top.md": "# Top\n\nroot note\n",
        "a/one.md": "# One\n\nfirst\n",
        "a/b/two.md": "# Two\n\nsecond\n",
        "a/b/c/three.md": "# Three\n\nthird\n",
        "x/y/four.md": "# Four\n\nfourth\n",
    ]

    @Test func aRefreshWithNothingChangedListsNoFolder() throws {
        let fixture = IndexFixture(files: Self.tree)
        let index = try stamped(fixture)
        let report = try index.refresh()
        #expect(!report.changedAnything)
        try expectIndexMatchesFiles(fixture, index)
        guard stampsAreUsedHere else { return }
        #expect(report.foldersListed == 0)
        #expect(report.foldersSkipped == 7)  // "", a, a/b, a/b/c, x, x/y, filler (not .notes)
        #expect(try stamps(index).values.allSatisfy { $0 != 0 })
    }

    @Test func everyKindOfChangeBelowStampedFoldersIsFound() throws {
        let fixture = IndexFixture(files: Self.tree)
        let index = try stamped(fixture)
        let fm = FileManager.default
        let root = fixture.root

        // A new file deep inside: only its folder is listed.
        fixture.write("a/b/c/new.md", "# New\n\nnarwhal\n")
        var report = try index.refresh()
        #expect(report.added == 1)
        if stampsAreUsedHere { #expect(report.foldersListed == 1) }
        #expect(try fixture.search("narwhal", index).hits.map(\.path) == ["a/b/c/new.md"])
        try expectIndexMatchesFiles(fixture, index, "add")
        try restamp(index)

        // An edit in place (no folder changes): found by the file's own stat.
        fixture.write("a/b/two.md", "# Two\n\nsecond, with a kraken\n")
        report = try index.refresh()
        #expect(report.modified == 1)
        if stampsAreUsedHere { #expect(report.foldersListed == 0) }
        #expect(try fixture.search("kraken", index).hits.map(\.path) == ["a/b/two.md"])
        try expectIndexMatchesFiles(fixture, index, "edit")
        try restamp(index)

        // A delete.
        try fm.removeItem(atPath: root + "/a/one.md")
        report = try index.refresh()
        #expect(report.removed == 1)
        try expectIndexMatchesFiles(fixture, index, "delete")
        try restamp(index)

        // A new folder tree inside a stamped one.
        fixture.write("x/y/z/w/deep.md", "# Deep\n\nabyssal\n")
        report = try index.refresh()
        #expect(report.added == 1)
        #expect(try fixture.search("abyssal", index).hits.map(\.path) == ["x/y/z/w/deep.md"])
        try expectIndexMatchesFiles(fixture, index, "new folders")
        try restamp(index)

        // A folder renamed: its files move (renames, not delete + add).
        try fm.moveItem(atPath: root + "/a/b", toPath: root + "/x/b2")
        report = try index.refresh()
        #expect(
            Set(report.renames.map(\.to)) == ["x/b2/two.md", "x/b2/c/three.md", "x/b2/c/new.md"])
        #expect(try fixture.search("narwhal", index).hits.map(\.path) == ["x/b2/c/new.md"])
        try expectIndexMatchesFiles(fixture, index, "folder rename")
        try restamp(index)

        // A folder deleted with everything in it; a file where a folder was.
        try fm.removeItem(atPath: root + "/x/y")
        fixture.write("x/y", "now a file\n")
        report = try index.refresh()
        #expect(try fixture.search("abyssal", index).hits.isEmpty)
        try expectIndexMatchesFiles(fixture, index, "folder replaced by a file")
        let left = try stamps(index)
        #expect(left.keys.contains { $0.hasPrefix("x/y") } == false, "\(left)")
        try restamp(index)

        // A file replaced by a folder of the same name, atomically saved files (rename over).
        try fm.removeItem(atPath: root + "/x/y")
        fixture.write("x/y/back.md", "# Back\n\nreturned\n")
        fixture.write("x/b2/two.md.tmp", "# Two\n\nsaved atomically, squid\n")
        try fm.removeItem(atPath: root + "/x/b2/two.md")
        try fm.moveItem(atPath: root + "/x/b2/two.md.tmp", toPath: root + "/x/b2/two.md")
        _ = try index.refresh()
        #expect(try fixture.search("squid", index).hits.map(\.path) == ["x/b2/two.md"])
        #expect(try fixture.search("returned", index).hits.map(\.path) == ["x/y/back.md"])
        try expectIndexMatchesFiles(fixture, index, "file replaced by a folder")
    }

    @Test func aFolderSwappedForASymlinkIsNotFollowedOut() throws {
        let fixture = IndexFixture(files: Self.tree)
        let outside = fixture.dir.write("outside/secret.md", "# Secret\n\nclassified plutonium\n")
        let index = try stamped(fixture)
        let fm = FileManager.default
        try fm.removeItem(atPath: fixture.root + "/a/b")
        try fm.createSymbolicLink(
            atPath: fixture.root + "/a/b",
            withDestinationPath: (outside as NSString).deletingLastPathComponent)
        let report = try index.refresh()
        #expect(report.removed == 2)
        #expect(try fixture.search("plutonium", index).hits.isEmpty)
        try expectIndexMatchesFiles(fixture, index)
        #expect(try stamps(index).keys.contains { $0.hasPrefix("a/b") } == false)
    }

    @Test func changedIgnoreRulesDropTheStamps() throws {
        let fixture = IndexFixture(files: Self.tree)
        _ = try stamped(fixture)
        fixture.write(".notes/config.yml", "ignore:\n  - \"c\"\n")
        let index = try open(fixture)  // the new config
        let report = try index.refresh()
        #expect(report.removed == 1)  // a/b/c/three.md
        #expect(try fixture.search("third", index).hits.isEmpty)
        try expectIndexMatchesFiles(fixture, index)
        #expect(try stamps(index)["a/b/c"] == nil)

        fixture.write(".notes/config.yml", "")
        let again = try open(fixture)
        #expect(try again.refresh().added == 1)
        try expectIndexMatchesFiles(fixture, again)
    }

    @Test func onlyFilesystemsThatKeepFolderTimesAreStamped() throws {
        // procfs invents its folder times: walked in full every time, no stamps kept.
        #expect(FileScanner(root: "/proc", rules: IgnoreRules()).skipsUnchangedFolders == false)
        let scan = FileScanner(root: "/proc/self/fdinfo", rules: IgnoreRules()).scan(
            trustingChangesBefore: Int64(Date().timeIntervalSince1970 * 1e9))
        #expect(scan.stamped == false && scan.listed.allSatisfy { $0.stamp.changeNanos == 0 })
        #expect(FolderStamps.needsRecording(scan, known: nil) == false)
    }

    @Test func aRepeatedWalkWritesNothing() throws {
        let fixture = IndexFixture(files: Self.tree)
        // Files saved within 2 s are re-read (and their rows rewritten) until they are older.
        for file in FileScanner(workspace: try Workspace(root: fixture.root)).scan().files {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)],
                ofItemAtPath: fixture.root + "/" + file.path)
        }
        let index = try stamped(fixture)
        let wal = index.databasePath + "-wal"
        let before = FileManager.default.contents(atPath: wal)
        _ = try index.refresh()
        _ = try index.refresh()
        #expect(FileManager.default.contents(atPath: wal) == before)
    }

    @Test func foldersHoldingConflictCopiesAreListedEveryTime() throws {
        let fixture = IndexFixture(
            files: Self.tree.merging(["a/one.sync-conflict-20260101-120000-ABC.md": "copy\n"]) {
                a, _ in a
            })
        let index = try stamped(fixture)
        for _ in 0..<2 {
            let report = try index.refresh()
            #expect(report.conflictCopies == ["a/one.sync-conflict-20260101-120000-ABC.md"])
        }
        #expect(try stamps(index)["a"] == 0)
    }

    @Test func aStampIsOnlyKeptWhileTheIndexHoldsEverythingItsListingFound() throws {
        let fixture = IndexFixture(files: Self.tree)
        let index = try stamped(fixture)
        guard stampsAreUsedHere else { return }
        #expect(try stamps(index)["a/b"] != 0)

        // Whoever removes a file's row unstamps its folder in the same transaction (here a
        // watcher-style refresh of the deleted path).
        try FileManager.default.removeItem(atPath: fixture.root + "/a/b/two.md")
        #expect(try index.refresh(only: ["a/b/two.md"]).removed == 1)
        #expect(try stamps(index)["a/b"] == 0)

        // Recording checks the rows: a listing whose file has no row (deleted by another
        // process after this walk listed it) is stamped 0, not trusted.
        settle()
        let scan = FileScanner(workspace: try Workspace(root: fixture.root)).scan(
            trustingChangesBefore: Int64((Date().timeIntervalSince1970 - Self.trustDelay) * 1e9))
        #expect(scan.listed.first { $0.stamp.path == "x/y" }?.stamp.changeNanos != 0)
        try index.pool.write { db in
            try db.execute(sql: "DELETE FROM files WHERE path = 'x/y/four.md'")
            try FolderStamps.record(scan, rules: IgnoreRules(), checking: true, db)
        }
        let recorded = try stamps(index)
        #expect(recorded["x/y"] == 0)
        #expect(recorded["x"] != 0)
        // The next refresh lists x/y again and puts the file back.
        #expect(try index.refresh().added == 1)
        try expectIndexMatchesFiles(fixture, index)
    }

    /// Random changes of every kind, refreshes in between (some right after a change, some
    /// after the folders settled), and after each refresh the index must equal a full walk.
    @Test(arguments: [1, 2, 3, 4])
    func randomChangesNeverDesynchroniseTheIndex(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let fixture = IndexFixture(files: Self.tree, filler: 5)
        let index = try stamped(fixture)
        for step in 0..<40 {
            RandomWorkspaceChange.make(
                step: step, kinds: 0..<9, in: fixture, random: &random, settle: settle)
            if Bool.random(using: &random) { settle() }
            _ = try index.refresh()
            try expectIndexMatchesFiles(fixture, index, "seed \(seed) step \(step)")
        }
    }
}

/// A small deterministic generator (SplitMix64) so a failing sequence can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
