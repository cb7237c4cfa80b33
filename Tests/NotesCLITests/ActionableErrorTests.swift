import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// A condition the person can act on answers with its own code, never `internal`, which means
/// a bug (issue 33, docs/decisions.md D224). Produced with real files: a folder where a file
/// should be (the tests may run as root, whom permissions never refuse).
@Suite struct ActionableErrorTests {
    /// The `error` object of a `--json` failure.
    func error(_ result: ProcessResult) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?[
            "error"] as? [String: Any]
    }

    @Test func aFolderWhereTheWorkspaceLockShouldBeIsAnIOError() throws {
        let notes = NotesRunner()
        let lock = notes.workspace + "/.notes/lock"
        try? FileManager.default.removeItem(atPath: lock)
        try FileManager.default.createDirectory(atPath: lock, withIntermediateDirectories: false)
        let result = notes("write", "Research/locked.md", "--json", stdin: "# Locked\n")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(error(result)?["code"] as? String == "io_error", "\(result.stdout)")
        #expect(
            (error(result)?["details"] as? [String: Any])?["errno"] as? Int == Int(EISDIR),
            "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: notes.workspace + "/Research/locked.md"))
    }

    /// A file where notes keeps its own folder is not a path the caller chose: `io_error`,
    /// while a file in the way of a path the caller gave stays `invalid_argument`.
    @Test func aFileWhereTheHistoryFolderShouldBeIsAnIOError() throws {
        let notes = NotesRunner()
        let history = notes.workspace + "/.notes/history"
        try? FileManager.default.removeItem(atPath: history)
        #expect(FileManager.default.createFile(atPath: history, contents: Data()))
        let result = notes("write", "Research/unlogged.md", "--json", stdin: "# Unlogged\n")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(error(result)?["code"] as? String == "io_error", "\(result.stdout)")
        #expect(
            (error(result)?["details"] as? [String: Any])?["errno"] as? Int == Int(ENOTDIR),
            "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: notes.workspace + "/Research/unlogged.md"))
        let chosen = notes("write", "reading-list.md/inside.md", "--json", stdin: "# Inside\n")
        #expect(error(chosen)?["code"] as? String == "invalid_argument", "\(chosen.stdout)")
    }

    /// A log line lost after the change became visible stays `internal` ("the change was
    /// made, but…": `io_error` would read as "nothing changed", D224) and keeps its errno.
    @Test func aLogLineLostAfterTheChangeKeepsItsErrno() throws {
        let notes = NotesRunner()
        // The fourth write of a new file's save: the history object, the intent, the file,
        // then the log line.
        let result = run(
            Repository.notesBinary, ["write", "Research/visible.md", "--json"],
            environment: notes.environment.merging(["NOTES_FAIL_IO": "write:4:ENOSPC"]) { $1 },
            directory: notes.workspace, stdin: "# Visible\n")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(error(result)?["code"] as? String == "internal", "\(result.stdout)")
        #expect((error(result)?["message"] as? String)?.contains("was made, but") == true)
        #expect(
            (error(result)?["details"] as? [String: Any])?["errno"] as? Int == Int(ENOSPC),
            "\(result.stdout)")
        #expect(FileManager.default.fileExists(atPath: notes.workspace + "/Research/visible.md"))
    }

    @Test func aFolderWhereTheTemplateManifestShouldBeIsAnIOError() throws {
        let notes = NotesRunner()
        try FileManager.default.createDirectory(
            atPath: notes.workspace + "/.notes/templates/templates.yml",
            withIntermediateDirectories: true)
        let result = notes("templates", "--json")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(error(result)?["code"] as? String == "io_error", "\(result.stdout)")
        #expect((error(result)?["message"] as? String)?.contains("templates.yml") == true)
    }

    @Test func anEditorThatFailsIsBadInputNotABug() throws {
        let notes = NotesRunner()
        #expect(notes("write", "Research/edited.md", stdin: "# Edited\n").status == 0)
        let result = run(
            Repository.notesBinary, ["edit", "Research/edited.md", "--json"],
            environment: notes.environment.merging(["EDITOR": "false", "VISUAL": ""]) { $1 },
            directory: notes.workspace)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(error(result)?["code"] as? String == "invalid_argument", "\(result.stdout)")
        #expect(
            try String(contentsOfFile: notes.workspace + "/Research/edited.md", encoding: .utf8)
                .contains("# Edited"))
    }
}
