import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Issue 31 item 10: `gc` asks and can dry-run, `history` marks what it cannot restore,
/// `notes read` shows the text search indexed, and CLI messages name CLI commands.
@Suite(.serialized) struct HistoryGCAndReadingTests {
    let notes = NotesRunner()

    func lines(_ text: String) -> [String] { text.lines().map(String.init).filter { !$0.isEmpty } }

    /// ideas.md written, then appended to twice: three versions, oldest first.
    func threeVersions() throws -> [String] {
        #expect(notes("write", "ideas.md", stdin: "one\n").status == 0)
        #expect(notes("append", "ideas.md", "two").status == 0)
        #expect(notes("append", "ideas.md", "three").status == 0)
        let records = try #require(
            try JSONSerialization.jsonObject(
                with: Data(notes("history", "ideas.md", "--json").stdout.utf8)) as? [[String: Any]])
        return records.compactMap { $0["after"] as? String }
    }

    @Test func gcDryRunSaysWhatWouldGoAndRemovesNothing() throws {
        let versions = try threeVersions()
        #expect(versions.count == 3)
        let dry = notes("gc", "--older-than", "0s", "--dry-run")
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(
            dry.stdout.hasPrefix("would remove ") && dry.stdout.contains("nothing was removed"),
            "\(dry.stdout)")
        #expect(!dry.stdout.hasPrefix("would remove 0 "))
        let json = try notes.json("gc", "--older-than", "0s", "--dry-run", "--json")
        #expect(json["dry_run"] as? Bool == true && (json["objects"] as? Int ?? 0) >= 2, "\(json)")
        let restored = notes("restore", "ideas.md", "--version", versions[0])
        #expect(restored.status == 0, "\(restored.stderr)")
        let text = try String(contentsOfFile: notes.workspace + "/ideas.md", encoding: .utf8)
        #expect(text.hasSuffix("one\n") && !text.contains("two"), "\(text)")
    }

    @Test func gcAsksOnATerminalAndANoRemovesNothing() throws {
        let script = "/usr/bin/script"
        try #require(
            FileManager.default.isExecutableFile(atPath: script),
            "util-linux `script` gives the command a terminal")
        let versions = try threeVersions()
        let command = "'\(Repository.notesBinary)' gc --older-than 0s"
        let declined = run(
            script, ["-qec", command, "/dev/null"], environment: notes.environment,
            directory: notes.workspace, stdin: "n\n")
        #expect(
            declined.stdout.contains("[y/N]") && declined.stdout.contains("nothing was removed"),
            "\(declined.stdout)")
        #expect(declined.status == 1)
        #expect(
            notes("restore", "ideas.md", "--version", versions[0]).status == 0,
            "declining removed nothing")
        let accepted = run(
            script, ["-qec", command, "/dev/null"], environment: notes.environment,
            directory: notes.workspace, stdin: "y\n")
        #expect(accepted.status == 0 && accepted.stdout.contains("removed "), "\(accepted.stdout)")
        #expect(
            notes("restore", "ideas.md", "--version", versions[1]).status == 2,
            "accepting removed the old versions")
    }

    @Test func historyMarksVersionsItCannotRestore() throws {
        let versions = try threeVersions()
        #expect(notes("gc", "--older-than", "0s").status == 0, "not a terminal: no question")
        let history = lines(notes("history", "ideas.md").stdout)
        #expect(history.count == 3, "\(history)")
        for line in history {
            let current = line.hasPrefix(versions[2])
            #expect(line.contains("cannot be restored") == !current, "\(line)")
            #expect(line.contains("← current") == current, "\(line)")
        }
        let records = try #require(
            try JSONSerialization.jsonObject(
                with: Data(notes("history", "ideas.md", "--json").stdout.utf8)) as? [[String: Any]])
        #expect(records.map { $0["restorable"] as? Bool } == [false, false, true], "\(records)")
        #expect(notes("restore", "ideas.md", "--version", versions[0]).status == 2)
    }

    /// From a trial: after a restore to an earlier version, every row of that version said
    /// "← current".
    @Test func onlyTheNewestRowOfTheCurrentVersionIsCurrent() throws {
        let versions = try threeVersions()
        #expect(notes("restore", "ideas.md", "--version", versions[0]).status == 0)
        let history = lines(notes("history", "ideas.md").stdout)
        #expect(history.count == 4, "\(history)")
        #expect(history.filter { $0.contains("← current") } == [history[0]], "\(history)")
        #expect(history[0].hasPrefix(versions[0]) && history[3].hasPrefix(versions[0]))
    }

    @Test func readShowsTextThatSearchCouldDecode() throws {
        #expect(
            FileManager.default.createFile(
                atPath: notes.workspace + "/latin.md",
                contents: Data("Caf\u{E9} au lait and a zanzibarquill\n".data(using: .isoLatin1)!)))
        #expect(notes("search", "zanzibarquill", "-l").stdout == "latin.md\n")
        let read = notes("read", "latin.md")
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stdout == "Caf\u{FFFD} au lait and a zanzibarquill\n")
        #expect(
            read.stderr.contains("not valid UTF-8") && lines(read.stderr).count == 1,
            "\(read.stderr)")
        let json = try notes.json("read", "latin.md", "--json")
        #expect(json["invalid_utf8_line"] as? Int == 1)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: notes.workspace + "/latin.md")).contains(
                0xE9), "the file is unchanged")
        #expect(
            FileManager.default.createFile(
                atPath: notes.workspace + "/image.md",
                contents: Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0])))
        #expect(notes("read", "image.md").status == 2, "binary is still refused")
    }

    @Test func messagesNameCommandsNotTools() {
        let tools = [
            "list_files", "read_file", "write_file", "append_file", "edit_file", "delete_file",
            "move_file", "old_text", "expected_version",
        ]
        #expect(notes("write", "ideas.md", stdin: "one\n").status == 0)
        let results = [
            notes("read", "nope.md"),
            notes("edit", "nope.md", "--old", "a", "--new", "b"),
            notes("edit", "ideas.md", "--old", "", "--new", "b"),
            notes("write", "gone.md", "--expected-version", "0123456789abcdef", stdin: "x\n"),
            notes("read", "nope.md", "--json"),
        ]
        for result in results {
            #expect(result.status == 2, "\(result.stderr)")
            for tool in tools {
                #expect(
                    !(result.stderr + result.stdout).contains(tool),
                    "\(tool) in: \(result.stderr)\(result.stdout)")
            }
        }
        #expect(results[0].stderr.contains("`notes list`"), "\(results[0].stderr)")
    }
}
