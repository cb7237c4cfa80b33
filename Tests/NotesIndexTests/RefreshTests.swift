import Foundation
import NotesCore
import NotesIndex
import NotesTestSupport
import Testing

@Suite struct RefreshTests {
    /// index == files: every file on disk is listed with the version of its bytes, and
    /// nothing else is.
    func expectIndexMatchesFiles(_ fixture: IndexFixture, _ index: NoteIndex) throws {
        let listing = try index.listing(folder: "", recursive: true, glob: nil, sort: .path)
        let scan = FileScanner(workspace: try Workspace(root: fixture.root)).scan()
        #expect(listing.files.map(\.path) == scan.files.map(\.path).sorted())
        for entry in listing.files {
            let bytes = try FileBytes.read(path: fixture.root + "/" + entry.path, maxBytes: 1 << 30)
            #expect(entry.version == ContentVersion(of: bytes).short, "\(entry.path)")
        }
    }

    @Test func incrementalRefreshFollowsEditsDeletesRenamesAndTouches() throws {
        let fixture = IndexFixture(files: [
            "a.md": "# A\n\nalpha whale\n", "b.md": "# B\n\nbeta\n", "c.txt": "gamma text\n",
        ])
        let index = try fixture.open()
        let first = try index.refresh()
        #expect(first.added == 23 && first.modified == 0)
        #expect(try index.refresh().changedAnything == false)

        fixture.write("a.md", "# A\n\nalpha narwhal\n")  // edit
        try FileManager.default.removeItem(atPath: fixture.root + "/b.md")  // delete
        try FileManager.default.createDirectory(
            atPath: fixture.root + "/moved", withIntermediateDirectories: true)
        try FileManager.default.moveItem(
            atPath: fixture.root + "/c.txt", toPath: fixture.root + "/moved/c.txt")  // rename
        fixture.write("d.md", "new delta\n")  // add
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)],
            ofItemAtPath: fixture.root + "/d.md")
        let second = try index.refresh()
        #expect(second.modified == 1)
        #expect(second.removed == 1)
        #expect(second.added == 1)
        #expect(second.renames == [.init(from: "c.txt", to: "moved/c.txt")])
        try expectIndexMatchesFiles(fixture, index)
        #expect(try fixture.search("whale", index).hits.isEmpty)
        #expect(try fixture.search("narwhal", index).hits.map(\.path) == ["a.md"])
        #expect(try fixture.search("gamma", index).hits.map(\.path) == ["moved/c.txt"])

        // A touch (same bytes, new mtime) is noticed but costs no parse and no "modified".
        let later = Date().addingTimeInterval(60)
        try FileManager.default.setAttributes(
            [.modificationDate: later], ofItemAtPath: fixture.root + "/d.md")
        let touched = try index.refresh()
        #expect(touched.touched == 1 && touched.modified == 0 && touched.bytesParsed == 0)
        try expectIndexMatchesFiles(fixture, index)
    }

    @Test func sameSizeEditWithinTheTimestampGranularityIsNotMissed() throws {
        let fixture = IndexFixture(files: ["a.md": "one\n"])
        let index = try fixture.refreshed()
        fixture.write("a.md", "two\n")  // same size, probably the same mtime tick
        _ = try index.refresh()
        #expect(try fixture.search("two", index).hits.map(\.path) == ["a.md"])
        try expectIndexMatchesFiles(fixture, index)
    }

    @Test func corruptOrForeignIndexIsRebuiltAndFilesAreUntouched() throws {
        let fixture = IndexFixture(files: ["a.md": "# A\n\nwhale\n"])
        _ = try fixture.refreshed()
        let database = fixture.dir.path + "/index/index.sqlite"
        unlink(database + "-wal")
        unlink(database + "-shm")
        fixture.dir.write("index/index.sqlite", String(repeating: "garbage ", count: 1000))
        let index = try fixture.open()
        _ = try index.refresh()
        #expect(try fixture.search("whale", index).hits.map(\.path) == ["a.md"])
        #expect(
            try String(contentsOfFile: fixture.root + "/a.md", encoding: .utf8) == "# A\n\nwhale\n")

        // An index made for another workspace is not trusted.
        let other = IndexFixture(files: ["z.md": "zebra\n"])
        let foreign = try NoteIndex(
            workspace: Workspace(root: other.root), directory: fixture.dir.path + "/index")
        _ = try foreign.refresh()
        #expect(try other.search("whale", foreign).hits.isEmpty)
        #expect(try other.search("zebra", foreign).hits.map(\.path) == ["z.md"])
    }

    @Test func badFilesAreListedWithDiagnosticsAndNeverStopTheRefresh() throws {
        let fixture = IndexFixture(files: [
            "bad-yaml.md": "---\ntitle: [oops\n---\nbody words\n",
            "list.md": "---\n- a\n---\nlisted body\n",
            "open.md": "---\ntitle: x\n",
        ])
        fixture.dir.write("ws/image.md", bytes: [0x89, 0x50, 0x4E, 0x47, 0, 0, 0, 0])
        fixture.dir.write("ws/photo.jpg", bytes: [0xFF, 0xD8, 0xFF])
        let index = try fixture.refreshed()
        let status = try index.status()
        let codes = Dictionary(grouping: status.diagnostics, by: \.path).mapValues {
            $0.map(\.code)
        }
        #expect(codes["bad-yaml.md"] == [.malformedFrontMatter])
        #expect(codes["list.md"] == [.frontMatterNotMapping])
        #expect(codes["open.md"] == [.unterminatedFrontMatter])
        #expect(codes["image.md"] == [.binary])
        #expect(try fixture.search("\"body words\"", index).hits.map(\.path) == ["bad-yaml.md"])
        let listing = try index.listing(folder: "", recursive: false, glob: nil, sort: .path)
        #expect(listing.files.first { $0.path == "photo.jpg" }?.indexed == false)
        #expect(listing.folders.map(\.path) == ["filler"])
    }
}
