import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// What a trial of the release binary found in help, `init`, `mv` and `edit`, through the
/// binary.
@Suite(.serialized) struct ReleaseTrialTests {
    let notes = NotesRunner()

    /// `restore --help` lists its own `--version VERSION` only, not the root's "Show the
    /// version"; `notes --version` still prints it.
    @Test func restoreHelpHasOneVersionOption() {
        let help = notes("restore", "--help").stdout
        let options = help.lines().filter { $0.hasPrefix("  --version") }
        #expect(options.count == 1, "\(help)")
        #expect(options.first?.contains("<version>") == true, "\(help)")
        let version = notes("--version")
        #expect(version.status == 0 && version.stdout.hasPrefix("notes "), "\(version.stderr)")
        let root = notes("--help").stdout
        for option in ["--version", "-w, --workspace <dir>", "--index-dir <dir>", "--color <when>"]
        {
            #expect(root.contains(option), "\(option) missing from: \(root)")
        }
        #expect(root.contains("~/.cache/notes/<name>-<id>"), "\(root)")
    }

    /// ArgumentParser wraps help at 79 columns: a longer line written into a discussion is
    /// split mid-sentence.
    @Test func noDiscussionLineIsWiderThanTheHelp() throws {
        let dump = notes("--experimental-dump-help")
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var wide: [String] = []
        func walk(_ command: [String: Any], _ name: String) {
            for line in ((command["discussion"] as? String) ?? "").split(separator: "\n")
            where line.count > 79 {
                wide.append("\(name): \(line)")
            }
            for sub in (command["subcommands"] as? [[String: Any]]) ?? [] {
                walk(sub, name + " " + ((sub["commandName"] as? String) ?? "?"))
            }
        }
        walk(try #require(root["command"] as? [String: Any]), "notes")
        #expect(wide.isEmpty, "\(wide.joined(separator: "\n"))")
    }

    /// A workspace inside a workspace is refused unless asked for with --nested.
    @Test func initInsideAWorkspaceIsRefusedUnlessNested() {
        let refused = notes("init", "sub/dir")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("is inside the workspace"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--nested"))
        #expect(!FileManager.default.fileExists(atPath: notes.workspace + "/sub"))
        let nested = notes("init", "sub/dir", "--nested", "--minimal")
        #expect(nested.status == 0, "\(nested.stderr)")
        #expect(FileManager.default.fileExists(atPath: notes.workspace + "/sub/dir/.notes"))
    }

    /// `notes init` in the current folder does not say "cd .".
    @Test func initHereSaysWhatToRunNext() throws {
        let folder = notes.dir.path + "/fresh"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let here = notes("init", in: folder)
        #expect(here.status == 0, "\(here.stderr)")
        #expect(!here.stdout.contains("cd ."), "\(here.stdout)")
        #expect(here.stdout.contains("notes status"), "\(here.stdout)")
    }

    /// `mv FILE FOLDER/` and `mv FILE EXISTING-FOLDER` move the file into it, as mv(1) does;
    /// the paths printed are the current folder's.
    @Test func moveIntoAFolder() throws {
        let research = notes.workspace + "/Research"
        _ = notes("write", "Research/one.md", stdin: "# One\n")
        _ = notes("write", "Research/two.md", stdin: "# Two\n")
        let into = notes("mv", "one.md", "../Journal", in: research)
        #expect(into.status == 0, "\(into.stderr)")
        #expect(FileManager.default.fileExists(atPath: notes.workspace + "/Journal/one.md"))
        #expect(into.stdout.contains("one.md → ../Journal/one.md"), "\(into.stdout)")
        let slash = notes("mv", "two.md", "../Archive/", in: research)
        #expect(slash.status == 0, "\(slash.stderr)")
        #expect(FileManager.default.fileExists(atPath: notes.workspace + "/Archive/two.md"))
        _ = notes("write", "Research/three.md", stdin: "# Three\n")
        let taken = notes("mv", "three.md", "../Journal/one.md", in: research)
        #expect(taken.status == 2)
        #expect(taken.stderr.contains("../Journal/one.md already exists"), "\(taken.stderr)")
        let missing = notes("mv", "nope.md", "../Journal/", in: research)
        #expect(missing.stderr.contains("no file at nope.md"), "\(missing.stderr)")
    }

    /// The editor gets a path with one slash between folders, whatever $TMPDIR ends with.
    @Test func theEditorsPathHasNoDoubleSlash() throws {
        let tmp = notes.dir.path + "/tmp/"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let seen = notes.dir.path + "/editor-saw"
        let editor = notes.dir.write("editor.sh", "#!/bin/sh\nprintf '%s' \"$1\" > '\(seen)'\n")
        chmod(editor, 0o755)
        let result = run(
            Repository.notesBinary, ["edit", "reading-list.md"],
            environment: notes.environment.merging(
                ["EDITOR": editor, "VISUAL": "", "TMPDIR": tmp]) { $1 },
            directory: notes.workspace)
        #expect(result.status == 0, "\(result.stderr)")
        let path = try String(contentsOfFile: seen, encoding: .utf8)
        #expect(path.hasPrefix(notes.dir.path + "/tmp/notes-edit-"), "\(path)")
        #expect(!path.contains("//"), "\(path)")
    }
}
