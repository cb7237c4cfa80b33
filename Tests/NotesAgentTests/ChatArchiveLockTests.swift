import Foundation
import NotesAgent
import NotesCore
import NotesStore
import NotesTestSupport
import Testing

/// A session lock that cannot be opened is a condition the person can act on: `io_error` with
/// its errno, not `internal` (docs/decisions.md D238).
@Suite struct ChatArchiveLockTests {
    @Test func aFolderWhereTheSessionLockShouldBeIsAnIOError() throws {
        let folder = TemporaryDirectory(prefix: "notes-chat-lock")
        _ = folder.write(".notes/config.yml", "# defaults\n")
        try FileManager.default.createDirectory(
            atPath: folder.path + "/.notes/agent/s1.lock", withIntermediateDirectories: true)
        let archive = ChatArchive(store: NoteStore(workspace: try Workspace(root: folder.path)))
        do {
            _ = try archive.lock("s1")
            Issue.record("a folder was taken as the session lock")
        } catch {
            #expect(error.code == .ioError, "\(error)")
            #expect(error.errno == EISDIR, "\(error)")
        }
    }
}
