import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The person's write commands through the binary (docs/spec.md §6.6), and what the index and the
/// history make of them.
@Suite(.serialized) struct WriteCommandTests {
    let notes = NotesRunner()

    /// A disk that refuses is an error the person can act on: `io_error` with the system's
    /// errno, not `internal`; an error nobody can act on stays `internal` (issue 33).
    @Test func aFullOrReadOnlyDiskIsAnIOErrorWithItsErrno() throws {
        for (fault, code, number) in [
            ("rename:1:ENOSPC", "io_error", Int(ENOSPC)),
            ("rename:1:EROFS", "io_error", Int(EROFS)), ("rename:1:EIO", "internal", Int(EIO)),
        ] {
            let result = run(
                Repository.notesBinary, ["write", "Research/disk.md", "--json"],
                environment: notes.environment.merging(["NOTES_FAIL_IO": fault]) { $1 },
                directory: notes.workspace, stdin: "# Disk\n")
            #expect(result.status == 2, "\(fault): \(result.stderr)")
            let error =
                (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])?[
                    "error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(fault): \(result.stdout)")
            #expect(
                (error?["details"] as? [String: Any])?["errno"] as? Int == number,
                "\(fault): \(result.stdout)")
            #expect(
                !FileManager.default.fileExists(atPath: notes.workspace + "/Research/disk.md"),
                "nothing was written")
        }
    }

    /// `notes write` with a body only keeps the file's front matter, as `write_file` does,
    /// and stamps the change as the person's.
    @Test func aBodyOnlyWriteKeepsTheFrontMatter() throws {
        let path = notes.workspace + "/Research/kept.md"
        try """
        ---
        title: Kept keys
        tags: [whales, ships]
        created_by: agent
        created_at: 2026-01-02T03:04:05Z
        last_modified_by: agent
        ---
        # Old body
        """.write(toFile: path, atomically: false, encoding: .utf8)
        let body = notes.dir.write("body.md", "# New body\n\nOnly a body.\n")
        let result = notes("write", "Research/kept.md", "--from", body)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for kept in [
            "title: Kept keys", "tags: [whales, ships]", "created_by: agent",
            "created_at: 2026-01-02T03:04:05Z", "last_modified_by: user",
        ] {
            #expect(text.contains(kept + "\n"), "\(kept) missing from: \(text)")
        }
        #expect(!text.contains("last_modified_by: agent"), "\(text)")
        #expect(text.hasSuffix("---\n# New body\n\nOnly a body.\n"), "\(text)")
        #expect(!text.contains("Old body"))
    }

    /// An offset past the last line is an error naming the file's length, not an empty page.
    @Test func readingPastTheEndSaysHowManyLines() throws {
        _ = notes.dir.write("ws/Research/numbers.txt", (1...22_333).map { "\($0)\n" }.joined())
        let past = notes("read", "Research/numbers.txt", "--offset", "99999")
        #expect(past.status == 2)
        #expect(past.stdout.isEmpty)
        #expect(past.stderr.lines().filter { !$0.isEmpty }.count == 1, "\(past.stderr)")
        #expect(past.stderr.contains("has 22333 lines"), "\(past.stderr)")
        let last = notes("read", "Research/numbers.txt", "--offset", "22333")
        #expect(last.status == 0 && last.stdout == "22333\n", "\(last.stderr)")
    }

    /// The hint for an empty standard input names a command that works.
    @Test func fromDevNullEmptiesTheFile() throws {
        let refused = notes("write", "Research/empty.md", stdin: "")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--from /dev/null"), "\(refused.stderr)")
        _ = notes("write", "Research/empty.md", stdin: "# Soon empty\n")
        let emptied = notes("write", "Research/empty.md", "--from", "/dev/null")
        #expect(emptied.status == 0, "\(emptied.stderr)")
        let text = try String(
            contentsOfFile: notes.workspace + "/Research/empty.md", encoding: .utf8)
        #expect(!text.contains("Soon empty"), "\(text)")
    }

    @Test func writeAppendEditRemoveRestoreAndTheirHistory() throws {
        let empty = try notes.json("write", "Research/ideas.md", "--json")
        #expect(
            (empty["error"] as? [String: Any])?["code"] as? String == "invalid_argument",
            "empty standard input is refused")
        let write = notes("write", "Research/ideas.md", "--json", stdin: "# Ideas\n\nFirst idea.\n")
        #expect(write.status == 0, "\(write.stderr)")
        let text = try String(
            contentsOfFile: notes.workspace + "/Research/ideas.md", encoding: .utf8)
        #expect(
            text.hasPrefix("---\ncreated_by: user\n") && text.hasSuffix("# Ideas\n\nFirst idea.\n"))
        #expect(notes("append", "Research/ideas.md", "Second", "idea.").status == 0)
        #expect(
            notes(
                "edit", "Research/ideas.md", "--old", "First idea.", "--new", "First idea, refined."
            ).status == 0)
        #expect(
            notes("edit", "Research/ideas.md", "--old", "absent", "--new", "x").stderr.contains(
                "was not found"))
        #expect(notes("rm", "Research/ideas.md").status == 0)
        #expect(!FileManager.default.fileExists(atPath: notes.workspace + "/Research/ideas.md"))
        #expect(notes("restore", "Research/ideas.md").status == 0)
        let restored = try String(
            contentsOfFile: notes.workspace + "/Research/ideas.md", encoding: .utf8)
        #expect(restored.contains("First idea, refined.\n\nSecond idea.\n"))
        let history = notes("history", "Research/ideas.md").stdout
        for op in ["create", "append", "edit", "delete", "restore"] {
            #expect(history.contains(" \(op) "), "\(op) missing from: \(history)")
        }
        let log = notes("log", "--jsonl").stdout.lines().filter { !$0.isEmpty }
        #expect(log.count == 5)
        #expect(notes("diff", "Research/ideas.md").status == 0)
        #expect(notes("mv", "Research/ideas.md", "Research/archive/ideas.md").status == 0)
        #expect(notes("read", "Research/archive/ideas.md").stdout.contains("Second idea."))
    }

    @Test func outsideEditsShowAsTheUsersInListAndLog() throws {
        // The agent's draft in the sample workspace, then an edit in an editor.
        let path = notes.workspace + "/Research/moby-dick/notes.md"
        _ = notes("search", "whale")  // index first
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try (original + "\nA new thought from my editor.\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let hits = try notes.json("search", "thought editor", "--json")
        let hit = try #require((hits["hits"] as? [[String: Any]])?.first)
        #expect((hit["provenance"] as? [String: Any])?["last_modified_by"] as? String == "user")
        let log = notes("log", "--jsonl").stdout
        #expect(log.contains("\"op\":\"external\"") && log.contains("Research/moby-dick/notes.md"))
        // From then on the person's editor saves can be undone too.
        let firstEdit = try String(contentsOfFile: path, encoding: .utf8)
        try (firstEdit + "A second thought.\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        _ = notes("search", "second thought")
        #expect(
            notes(
                "restore", "Research/moby-dick/notes.md", "--version",
                ContentVersion(of: Array(firstEdit.utf8)).short
            ).status == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == firstEdit)
    }

    /// An edit noticed after the fact happened when it was saved: the log's `external` line
    /// carries the file's mtime, and what a search shows before that line exists, after it,
    /// and after a rebuild is the same time (it used to be the mtime first and the time of
    /// noticing after a rebuild).
    @Test func anOutsideEditIsLoggedAtItsSaveTimeAndARebuildAgrees() throws {
        let relative = "Research/moby-dick/notes.md"
        let path = notes.workspace + "/" + relative
        _ = notes("search", "whale")
        func lastModified(_ query: String) throws -> String? {
            let hits = try notes.json("search", query, "--json")
            let hit = try #require(
                (hits["hits"] as? [[String: Any]])?.first { $0["path"] as? String == relative })
            return (hit["provenance"] as? [String: Any])?["last_modified_at"] as? String
        }
        /// The times of the path's log lines with operation `op`, newest first (as `notes log`).
        func times(_ op: String) -> [String] {
            notes("log", relative, "--jsonl").stdout.split(separator: "\n").compactMap { line in
                guard
                    let record = try? JSONSerialization.jsonObject(with: Data(line.utf8))
                        as? [String: Any],
                    record["op"] as? String == op
                else { return nil }
                return record["time"] as? String
            }
        }
        let original = try String(contentsOfFile: path, encoding: .utf8)
        try (original + "\nSaved an hour ago.\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        let saved = (Date().timeIntervalSince1970 - 3600).rounded(.down) + 0.9
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: saved)], ofItemAtPath: path)
        let expected = Timestamp.format(saved)
        #expect(try lastModified("saved hour") == expected)
        #expect(times("external") == [expected])
        #expect(try lastModified("saved hour") == expected)
        #expect(notes("index", "--rebuild").status == 0)
        #expect(try lastModified("saved hour") == expected)

        // A tool write, then an outside save whose mtime is older than it (a sync tool
        // restoring a file): logged at the tool write's time, so the log reads in order.
        #expect(notes("append", relative, "Appended by the tool.").status == 0)
        let toolTime = try #require(times("append").first)
        let appended = try String(contentsOfFile: path, encoding: .utf8)
        try (appended + "\nRestored by sync.\n").write(
            toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: saved - 86_400)], ofItemAtPath: path)
        #expect(try lastModified("restored sync") == toolTime)
        #expect(times("external") == [toolTime, expected])
        #expect(notes("index", "--rebuild").status == 0)
        #expect(try lastModified("restored sync") == toolTime)
    }

    @Test func errorsAreOneLineOrJSONWithDetails() throws {
        let stale = notes(
            "write", "Journal/2026-11-20.md", "--expected-version", "0000000000000000", stdin: "x\n"
        )
        #expect(
            stale.status == 2 && stale.stderr.hasPrefix("notes: ")
                && stale.stderr.contains("changed since you read it"))
        let result = notes(
            "write", "Journal/2026-11-20.md", "--expected-version", "0000000000000000", "--json",
            stdin: "x\n")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let error = try #require(json["error"] as? [String: Any])
        #expect(error["code"] as? String == "stale_version")
        #expect((error["details"] as? [String: Any])?["current_version"] is String)
        // The options name commands, never the agent's tools (from a trial).
        let options = try #require((error["details"] as? [String: Any])?["options"] as? [String])
        #expect(
            !options.isEmpty
                && options.allSatisfy { $0.contains("`notes ") && !$0.contains("_file") },
            "\(options)")
        #expect(notes("write", ".notes/config.yml", stdin: "x").stderr.contains("tool's own state"))
        #expect(notes("write", "../outside.md", stdin: "x").stderr.contains("leaves the workspace"))
        #expect(notes("review").stdout.contains("no pending proposals"))
    }
}
