import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesTestSupport
import Testing

/// Freshness from inotify (docs/spec.md §4.3): the watcher reports what changed, and a refresh of
/// only those paths leaves the index exactly as a full refresh would.
@Suite struct WatchTests {
    /// Reads the watcher until it reports something (events arrive asynchronously only in
    /// the sense that the kernel queues them at the syscall; a short wait covers scheduling).
    func changes(_ watcher: FolderWatcher) -> FolderWatcher.Changes? {
        for _ in 0..<50 {
            if let changes = watcher.read() { return changes }
            _ = watcher.wait(milliseconds: 20)
        }
        return nil
    }

    func paths(_ changes: FolderWatcher.Changes?) -> Set<String> {
        if case .paths(let paths) = changes { return paths }
        return []
    }

    @Test func watcherReportsEditsCreatesDeletesAndNewFoldersWithTheirContents() throws {
        let fixture = IndexFixture(
            files: ["a.md": "# A\n\nalpha\n", "notes/b.md": "# B\n\nbeta\n"], filler: 0)
        let watcher = try FolderWatcher(workspace: Workspace(root: fixture.root))
        #expect(watcher.folderCount == 2)  // the root and notes/; .notes/ is never watched
        #expect(watcher.read() == nil)

        fixture.write("a.md", "# A\n\nalpha edited\n")
        #expect(paths(changes(watcher)).contains("a.md"))

        try FileManager.default.removeItem(atPath: fixture.root + "/notes/b.md")
        #expect(paths(changes(watcher)) == ["notes/b.md"])

        // A folder created with a file already inside: the folder itself is reported (and
        // walked by the refresh), and later writes inside it are seen.
        try FileManager.default.createDirectory(
            atPath: fixture.root + "/new/deep", withIntermediateDirectories: true)
        fixture.write("new/deep/c.md", "gamma\n")
        let created = paths(changes(watcher))
        #expect(created.contains("new"))
        fixture.write("new/deep/d.md", "delta\n")
        #expect(paths(changes(watcher)).contains("new/deep/d.md"))

        // Changes inside .notes/ (history, config) are not the workspace's content.
        fixture.write(".notes/history.tmp", "x")
        #expect(changes(watcher) == nil)
    }

    @Test func refreshOfReportedPathsEqualsAFullRefresh() throws {
        let fixture = IndexFixture(files: [
            "a.md": "# A\n\nalpha whale\n", "b.md": "# B\n\nbeta\n", "old/c.md": "# C\n\ngamma\n",
        ])
        let session = try fixture.session()
        let index = session.index
        #expect(session.watchForChanges() == nil)
        #expect(try session.refreshIfNeeded().changedAnything == false)

        fixture.write("a.md", "# A\n\nalpha narwhal\n")
        try FileManager.default.removeItem(atPath: fixture.root + "/b.md")
        try FileManager.default.moveItem(
            atPath: fixture.root + "/old", toPath: fixture.root + "/renamed")
        try FileManager.default.createDirectory(
            atPath: fixture.root + "/fresh", withIntermediateDirectories: true)
        fixture.write("fresh/d.md", "# D\n\ndelta quokka\n")

        var report = RefreshReport()
        for _ in 0..<50 where !report.changedAnything {
            report = try session.refreshIfNeeded()
            if !report.changedAnything { usleep(20_000) }
        }
        // Later events of the same changes may arrive in a second read.
        let more = try session.refreshIfNeeded()
        #expect(report.modified + more.modified == 1)
        #expect(report.removed + more.removed == 1)
        #expect(report.added + more.added == 1)
        #expect(report.renames + more.renames == [.init(from: "old/c.md", to: "renamed/c.md")])

        #expect(try fixture.search("quokka", index).hits.map(\.path) == ["fresh/d.md"])
        #expect(try fixture.search("narwhal", index).hits.map(\.path) == ["a.md"])
        #expect(try fixture.search("whale", index).hits.isEmpty)
        // A full refresh finds nothing left to do: the targeted ones missed nothing.
        #expect(try index.refresh().changedAnything == false)
        #expect(try session.refreshIfNeeded().changedAnything == false)
    }

    @Test func targetedRefreshOfAGoneFolderRemovesEverythingBelowItOnly() throws {
        let fixture = IndexFixture(
            files: [
                "keep/a.md": "alpha\n", "drop/b.md": "beta\n", "drop/sub/c.md": "gamma\n",
                "dropped.md": "delta\n",
            ], filler: 0)
        let index = try fixture.refreshed()
        try FileManager.default.removeItem(atPath: fixture.root + "/drop")
        let report = try index.refresh(only: ["drop"])
        #expect(report.removed == 2)  // not "dropped.md", which only shares the prefix
        #expect(report.files == 2)
        #expect(try index.refresh().changedAnything == false)
    }

    @Test func aLiveWatchLeaseTellsReadersTheIndexIsKeptFresh() throws {
        let fixture = IndexFixture(filler: 1)
        let index = try fixture.refreshed()
        let stamp = index.workspace.configStamp
        #expect(index.isKeptFreshByWatcher == false)
        do {
            let lease = try index.takeWatchLease(mode: "inotify", configStamp: stamp)
            #expect(index.isKeptFreshByWatcher)
            // One watcher per index.
            #expect(throws: NotesError.self) {
                _ = try index.takeWatchLease(mode: "inotify", configStamp: stamp)
            }
            // A watcher that loaded other settings (the config file was edited since) is not
            // trusted until it says it runs under the reader's.
            #expect(
                NoteIndex.isKeptFreshByWatcher(directory: index.directory, configStamp: "other")
                    == false)
            lease.update(mode: "inotify", configStamp: "other")
            #expect(index.isKeptFreshByWatcher == false)
            #expect(
                NoteIndex.isKeptFreshByWatcher(directory: index.directory, configStamp: "other"))
            withExtendedLifetime(lease) {}
        }
        #expect(index.isKeptFreshByWatcher == false)
        // A polling watcher does not let readers skip their walk.
        let polling = try index.takeWatchLease(mode: "poll", configStamp: stamp)
        #expect(index.isKeptFreshByWatcher == false)
        withExtendedLifetime(polling) {}
    }

    /// A long-lived process follows an edit of .notes/config.yml: every copy of the
    /// workspace sees the new settings, and a rescan applies them to the index.
    @Test func anEditedConfigIsLoadedAgainAndTheIndexFollowsIt() throws {
        let fixture = IndexFixture(
            files: ["keep.md": "# Keep\n\nalpha\n", "Archive/old.md": "# Old\n\nalpha\n"], filler: 0
        )
        let session = try fixture.session()
        let index = session.index
        #expect(session.watchForChanges() == nil)
        let copy = index.workspace
        #expect(copy.reloadConfigIfChanged() == false)
        #expect(try fixture.search("alpha", index).hits.count == 2)
        let before = copy.configStamp
        try FileManager.default.createDirectory(
            atPath: fixture.root + "/.notes", withIntermediateDirectories: true)
        try "ignore:\n  - \"Archive/**\"\n".write(
            toFile: fixture.root + "/.notes/config.yml", atomically: true, encoding: .utf8)
        #expect(copy.reloadConfigIfChanged())
        #expect(copy.reloadConfigIfChanged() == false, "loaded once per change")
        #expect(copy.configStamp != before)
        #expect(index.workspace.config.ignore.count == 1, "copies share the settings")
        try session.settingsChanged()
        #expect(try fixture.search("alpha", index).hits.map(\.path) == ["keep.md"])
    }
}
