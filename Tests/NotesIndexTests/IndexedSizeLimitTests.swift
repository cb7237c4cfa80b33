import Foundation
import NotesCore
import NotesIndex
import Testing

/// `limits.index_max_bytes` changed while the files stay as they are: the next refresh of
/// the workspace indexes or drops the files between the two limits (``IndexedSizeLimit``).
@Suite struct IndexedSizeLimitTests {
    static let book =
        "# Logbook\n\n"
        + String(
            repeating: "The narwhal surfaced at dawn and the crew watched it turn. ", count: 60)
    static let files = ["book.md": book, "note.md": "# Note\n\na narwhal sketch\n"]

    func limit(_ fixture: IndexFixture, _ bytes: Int) {
        fixture.write(".notes/config.yml", "limits:\n  index_max_bytes: \(bytes)\n")
    }

    /// Files saved within 2 s are read again until they are older: make them older.
    func settle(_ fixture: IndexFixture) throws {
        for file in FileScanner(workspace: try Workspace(root: fixture.root)).scan().files {
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)],
                ofItemAtPath: fixture.root + "/" + file.path)
        }
    }

    func found(_ fixture: IndexFixture, _ index: NoteIndex) throws -> [String] {
        try fixture.search("narwhal", index).hits.map(\.path).sorted()
    }

    @Test func aChangedLimitReachesFilesThatDidNotChange() throws {
        let fixture = IndexFixture(files: Self.files)
        #expect(Self.book.utf8.count > 2_000)
        limit(fixture, 2_000)
        try settle(fixture)
        let small = try fixture.refreshed()
        #expect(try found(fixture, small) == ["note.md"])

        // Raised: the book is read again and indexed, and that is no edit of the person's.
        limit(fixture, 100_000)
        let raised = try fixture.open()
        let report = try raised.refresh()
        #expect(report.changedAnything && report.outsideEdits.isEmpty, "\(report)")
        #expect(try found(fixture, raised) == ["book.md", "note.md"])
        // Recorded: the next refresh reads nothing again.
        #expect(try !fixture.open().refresh().changedAnything)

        // Lowered again, opened as a command opens it (the layout kept by the last refresh).
        limit(fixture, 2_000)
        let lowered = try fixture.open(refreshingSoon: true)
        let dropped = try lowered.refresh()
        #expect(dropped.changedAnything && dropped.outsideEdits.isEmpty, "\(dropped)")
        #expect(try found(fixture, lowered) == ["note.md"])
        #expect(try !fixture.open(refreshingSoon: true).refresh().changedAnything)
    }

    /// Files past both limits, and below both, are not read again.
    @Test func filesOnTheSameSideOfBothLimitsAreNotReadAgain() throws {
        let fixture = IndexFixture(files: Self.files)
        limit(fixture, 1_000)
        try settle(fixture)
        _ = try fixture.refreshed()
        limit(fixture, 2_000)
        let report = try fixture.open().refresh()
        #expect(!report.changedAnything, "\(report)")
    }
}
