import CSystemCalls
import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// A first build is written into a private file and renamed into place (NoteIndex+FreshBuild),
/// only when no other process or instance has the index open.
@Suite struct FreshBuildTests {
    /// More files than a bulk refresh needs: a first build of them is written aside.
    static let files = NoteIndex.bulkFiles + 100

    static func fixture() -> IndexFixture {
        let f = IndexFixture(filler: 0)
        for i in 0..<files {
            f.write(
                "n\(i / 100)/note\(i).md",
                "---\ntitle: Note \(i)\ntags: [t\(i % 7)]\nproject: p\(i % 3)\n---\n# Note \(i)\n\nword\(i) common text [link](n0/note\((i + 1) % files).md)\n"
            )
        }
        return f
    }

    func answers(_ f: IndexFixture, _ index: NoteIndex) throws -> [String] {
        try [
            "word7", "common", "tag:t3 word10", "project:p1 note",
            "title:note word\(Self.files - 1)",
        ].map {
            query in
            let results = try f.search(query, index)
            return "\(query): \(results.total) " + results.hits.map(\.path).joined(separator: ",")
        }
    }

    /// Below the bulk size there is no build aside: the first refresh creates the live
    /// database itself (an empty workspace too), with the policy its hidden flags follow.
    @Test func aSmallFirstRefreshCreatesTheLiveDatabase() throws {
        for files in [[:], ["a.md": "# A\n\nwhale\n", "b/c.md": "# C\n\nsea\n"]] {
            let f = IndexFixture(files: files, filler: 0)
            let index = try f.open()
            #expect(!FileManager.default.fileExists(atPath: index.databasePath))
            let report = try index.refresh()
            #expect(report.added == files.count)
            #expect(FileManager.default.fileExists(atPath: index.databasePath))
            let policy = try index.pool.read { db in
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'hidden_policy'")
            }
            #expect(policy == index.workspace.config.policy.fingerprint)
            #expect(try f.search("whale", index).total == (files.isEmpty ? 0 : 1))
        }
    }

    @Test func aFirstBuildIsWrittenAsideAndSwappedIn() throws {
        let f = Self.fixture()
        let index = try f.open()
        // No live database is created before the build writes its own file.
        #expect(!FileManager.default.fileExists(atPath: index.databasePath))
        #expect(!index.isPoolOpen)
        let before = inode(index.databasePath)
        let report = try index.refresh()
        #expect(report.added == Self.files)
        #expect(inode(index.databasePath) != before, "the database file was not replaced")
        #expect(!FileManager.default.fileExists(atPath: index.databasePath + ".building"))
        #expect(!index.isPoolOpen, "the build opened the database it only had to swap in")
        // The swapped-in file is a normal WAL index with its secondary indexes.
        let mode = run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                print(c.execute('PRAGMA journal_mode').fetchone()[0])
                print(sorted(r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='index' AND name NOT LIKE 'sqlite_%'")))
                """, index.databasePath,
            ])
        #expect(mode.stdout.hasPrefix("wal\n"), "\(mode.stdout) \(mode.stderr)")
        #expect(
            mode.stdout.hasSuffix(
                "['chunks_by_section', 'files_hidden', 'metadata_by_key', 'tags_by_tag']\n"),
            "\(mode.stdout)")

        // The same answers as an index written row by row into the live file (a second
        // instance holding the index open makes the first one fall back).
        let g = Self.fixture()
        let live = try g.open()
        let other = try g.open()
        _ = try other.pool  // the other instance has the live database open (created)
        let liveBefore = inode(live.databasePath)
        #expect(liveBefore != 0)
        #expect(try live.refresh().added == Self.files)
        #expect(
            inode(live.databasePath) == liveBefore,
            "a fresh build swapped the file under another open instance")
        #expect(try answers(f, index) == answers(g, other))
        #expect(try answers(f, index).allSatisfy { !$0.contains(": 0 ") })

        // A rebuild is a first build again; incremental refreshes write in place.
        let full = inode(index.databasePath)
        #expect(try index.rebuild().added == Self.files)
        #expect(inode(index.databasePath) != full)
        f.write("n0/note0.md", "# Note 0\n\nword0 changed\n")
        let swapped = inode(index.databasePath)
        #expect(try index.refresh().modified == 1)
        #expect(inode(index.databasePath) == swapped)
        #expect(try f.search("changed", index).hits.map(\.path) == ["n0/note0.md"])
    }

    /// Takes a file's tags out of the index behind the refresh's back (so only a rebuild,
    /// which re-reads every file, can bring them back).
    func dropTags(of path: String, _ index: NoteIndex) {
        let result = run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1])
                (id,) = c.execute('SELECT id FROM files WHERE path = ?', (sys.argv[2],)).fetchone()
                c.execute('DELETE FROM tags WHERE file_id = ?', (id,))
                c.commit()
                print('dropped')
                """, index.databasePath, path,
            ])
        #expect(result.stdout == "dropped\n", "\(result.stderr)")
    }

    /// `notes index --rebuild` re-reads every file, even unchanged ones. Alone, it builds aside
    /// and swaps (no row-by-row deletes of the old index); with another instance holding the
    /// index open it empties the live file and refills it; a workspace under the bulk size
    /// is refilled in place. All three give the answers of a first build.
    /// Another process (a `notes watch`) indexes an edit while a rebuild is under way; the
    /// rebuild had read the file before the edit, and its copy would bring the old text back
    /// with nobody to notice (the watcher already handled the edit). The rebuild reads again
    /// what changed while it ran.
    @Test func editsIndexedElsewhereDuringARebuildSurviveIt() throws {
        let f = IndexFixture(filler: 0)
        for i in 0..<700 { f.write("n\(i / 100)/note\(i).md", "# Note \(i)\n\nbefore\(i) text\n") }
        let index = try f.refreshed()
        let other = try f.open()  // holds the index open: the rebuild copies in
        let edited = Locked(false)
        _ = try index.rebuild { _ in
            // After the first batch was read: every file changes and the other instance
            // indexes the change at once, as a watcher would.
            guard
                !edited.withLock({
                    let was = $0
                    $0 = true
                    return was
                })
            else { return }
            for i in 0..<700 {
                f.write("n\(i / 100)/note\(i).md", "# Note \(i)\n\nafter\(i) text, edited\n")
            }
            _ = try? other.refresh()
        }
        #expect(edited.withLock { $0 })
        var stale: [Int] = []
        for i in 0..<700
        where try f.search("after\(i)", index).hits.map(\.path) != ["n\(i / 100)/note\(i).md"] {
            stale.append(i)
        }
        #expect(
            stale.isEmpty,
            "\(stale.count) notes show their text from before the edit: \(stale.prefix(5))")
        #expect(try f.search("edited", index).total == 700)
    }

    @Test func aRebuildReadsEveryFileAgain() throws {
        let reference = Self.fixture()
        let expected = try answers(reference, reference.refreshed())

        let f = Self.fixture()
        let index = try f.refreshed()
        dropTags(of: "n0/note7.md", index)
        #expect(try f.search("tag:t0 word7", index).hits.isEmpty, "the tags were not dropped")
        _ = try index.refresh()
        #expect(
            try f.search("tag:t0 word7", index).hits.isEmpty, "a refresh re-read an unchanged file")
        let before = inode(index.databasePath)
        let report = try index.rebuild()
        #expect(report.added == Self.files && report.unchanged == 0 && report.files == Self.files)
        #expect(inode(index.databasePath) != before, "a rebuild alone did not build aside")
        #expect(try answers(f, index) == expected)
        #expect(try f.search("tag:t0 word7", index).hits.map(\.path) == ["n0/note7.md"])

        let g = Self.fixture()
        let live = try g.refreshed()
        dropTags(of: "n0/note7.md", live)
        let other = try g.open()
        let liveBefore = inode(live.databasePath)
        #expect(try live.rebuild().added == Self.files)
        #expect(
            inode(live.databasePath) == liveBefore,
            "a rebuild swapped the file under another open instance")
        #expect(try answers(g, other) == expected)
        #expect(try g.search("note", other).total == Self.files, "rows left twice or missing")

        let small = IndexFixture(
            files: [
                "a.md": "# Alpha\n\nkeyword one #red\n", "b.md": "# Beta\n\nkeyword two #red\n",
            ], filler: 3)
        let smallIndex = try small.refreshed()
        let smallBefore = inode(smallIndex.databasePath)
        dropTags(of: "a.md", smallIndex)
        #expect(try small.search("tag:red keyword", smallIndex).hits.map(\.path) == ["b.md"])
        #expect(try smallIndex.rebuild().added == 5)
        #expect(
            inode(smallIndex.databasePath) != smallBefore,
            "a small rebuild builds aside too (refilling in place showed other processes an emptied index)"
        )
        #expect(
            try small.search("tag:red keyword", smallIndex).hits.map(\.path).sorted() == [
                "a.md", "b.md",
            ])
    }

    /// The hint a first build gives the kernel so that its final fsync has little left
    /// (Linux): it must act on an open file and report a bad descriptor, not ignore it.
    @Test func writebackStartsOnAFileAndRefusesABadDescriptor() throws {
        let f = IndexFixture(filler: 0)
        let path = f.root + "/written.bin"
        #expect(
            FileManager.default.createFile(
                atPath: path, contents: Data(repeating: 1, count: 1 << 20)))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        #expect(notes_start_writeback(fd) == 0)
        close(fd)
        // -1, not the closed number: tests run in parallel and another may reuse it.
        errno = 0
        #expect(notes_start_writeback(-1) == -1)
        #expect(errno == EBADF)
    }

    @Test func aLeftoverFromACrashedBuildIsRemovedByTheNextOpen() throws {
        let f = Self.fixture()
        let index = try f.open()
        let leftover = index.databasePath + ".building"
        #expect(
            FileManager.default.createFile(
                atPath: leftover, contents: Data(repeating: 7, count: 4096)))
        // Opening takes the shared lock, which a builder would hold exclusively: so nobody is
        // building, and the file is a crashed build's.
        let next = try f.open()
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try next.refresh().added == Self.files)
    }
}
