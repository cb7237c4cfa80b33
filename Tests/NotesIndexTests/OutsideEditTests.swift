import Foundation
import NotesCore
import NotesIndex
import NotesSession
import NotesTestSupport
import Testing

/// The index is a cache (docs/decisions.md D210): a refresh finds the edits made outside
/// notes and hands them to its ledger; only a session's ledger writes them into history.
@Suite struct OutsideEditTests {
    func log(_ fixture: IndexFixture) -> String {
        (try? String(contentsOfFile: fixture.root + "/.notes/history/log.jsonl", encoding: .utf8))
            ?? ""
    }

    @Test func aSessionsRefreshLogsTheOutsideEditItFinds() throws {
        let fixture = IndexFixture(
            files: ["a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"], filler: 0)
        let session = try fixture.session()
        #expect(try session.index.refresh().outsideEdits.isEmpty, "new files are not outside edits")
        fixture.write("a.md", "# A\n\nalpha, edited in another editor\n")
        let report = try session.index.refresh()
        #expect(report.outsideEdits.map(\.path) == ["a.md"])
        let lines = log(fixture).split(separator: "\n").filter { $0.contains("\"external\"") }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("\"a.md\"") == true)
        #expect(lines.first?.contains("\"user\"") == true)
        // Found once: the next refresh has nothing new to log.
        #expect(try session.index.refresh().outsideEdits.isEmpty)
        #expect(
            log(fixture).split(separator: "\n").filter { $0.contains("\"external\"") }.count == 1)
    }

    @Test func anIndexOnItsOwnReportsOutsideEditsAndWritesNoHistory() throws {
        let fixture = IndexFixture(files: ["a.md": "# A\n\nalpha\n"], filler: 0)
        let index = try fixture.refreshed()
        fixture.write("a.md", "# A\n\nalpha, edited\n")
        let report = try index.refresh()
        #expect(report.modified == 1)
        #expect(report.outsideEdits.map(\.path) == ["a.md"])
        #expect(!FileManager.default.fileExists(atPath: fixture.root + "/.notes/history/log.jsonl"))
    }
}
