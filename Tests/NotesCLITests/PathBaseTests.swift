import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Issue 31 item 4 (docs/cli.md "Paths", decisions.md D235): run from a subfolder of the
/// workspace, the real binary takes and prints paths relative to that folder, so what it
/// prints can be typed back; with `-w` (or `$NOTES_WORKSPACE`) they stay workspace-relative.
@Suite(.serialized) struct PathBaseTests {
    let notes = NotesRunner()
    var research: String { notes.workspace + "/Research" }

    func lines(_ text: String) -> [String] { text.lines().map(String.init).filter { !$0.isEmpty } }

    /// A workspace-relative path as seen from `Research/`.
    func fromResearch(_ path: String) -> String {
        path.hasPrefix("Research/") ? String(path.dropFirst("Research/".count)) : "../" + path
    }

    func json(_ arguments: String..., in directory: String) throws -> [String: Any] {
        let result = run(
            Repository.notesBinary, arguments, environment: notes.environment, directory: directory)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stderr)")
    }

    @Test func searchListsPathsFromTheCurrentFolder() {
        let fromRoot = lines(notes("search", "whale", "-l").stdout)
        let sub = notes("search", "whale", "-l", in: research)
        #expect(sub.status == 0, "\(sub.stderr)")
        #expect(lines(sub.stdout) == fromRoot.map(fromResearch))
        #expect(lines(sub.stdout).contains("moby-dick/notes.md"))
        #expect(lines(sub.stdout).contains("../Journal/2026-11-20.md"))
    }

    @Test func searchTextJSONAndFormatPrintPathsFromTheCurrentFolder() throws {
        let text = notes("search", "whale", in: research).stdout
        #expect(
            text.contains("\nmoby-dick/notes.md") || text.hasPrefix("moby-dick/notes.md"), "\(text)"
        )
        #expect(!text.contains("Research/moby-dick/notes.md"))
        let doc = try json("search", "whale", "--json", in: research)
        let paths = try #require(doc["hits"] as? [[String: Any]]).compactMap {
            $0["path"] as? String
        }
        #expect(
            paths.contains("../Journal/2026-11-20.md") && paths.contains("moby-dick/notes.md"),
            "\(paths)")
        let jsonl = lines(notes("search", "whale", "--jsonl", in: research).stdout)
        let jsonlPaths = try jsonl.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])[
                "path"] as? String
        }
        #expect(jsonlPaths == paths)
        let formatted = lines(notes("search", "whale", "--format", "{{path}}", in: research).stdout)
        #expect(formatted == paths)
    }

    /// A folder filter typed as from the workspace root, run in a subfolder: the error says
    /// paths are relative to the current folder and suggests the same name in a folder
    /// above; a file given to `list` is a file, not a missing folder.
    @Test func aMissingFolderFromASubfolderSaysPathsAreRelativeToIt() throws {
        let meant = notes("search", "whale", "in:Journal", in: research)
        #expect(meant.status == 2)
        #expect(
            meant.stderr.contains(
                "there is no Journal in Research/, the current folder (did you mean ../Journal?)"),
            "\(meant.stderr)")
        #expect(lines(meant.stderr).count == 1)
        let listed = notes("list", "Journal", in: research)
        #expect(listed.status == 2)
        #expect(listed.stderr.contains("did you mean ../Journal?"), "\(listed.stderr)")
        // The nearest folder above that has the name, not only the root.
        let deeper = research + "/moby-dick"
        let sibling = notes("list", "whaling-history", in: deeper)
        #expect(sibling.stderr.contains("did you mean ../whaling-history?"), "\(sibling.stderr)")
        let nowhere = notes("search", "whale", "--in", "Nowhere", in: research)
        #expect(nowhere.status == 2)
        #expect(nowhere.stderr.contains("there is no Nowhere in Research/, the current folder"))
        #expect(nowhere.stderr.contains("`notes list` shows the folders"), "\(nowhere.stderr)")
        // Climbing out of the base or typed absolute: no note about the current folder.
        let climbed = notes("list", "../Nowhere", in: research)
        #expect(
            climbed.stderr.contains("there is no ../Nowhere in the workspace"), "\(climbed.stderr)")
        // Another letter case: the name as the folder spells it.
        let lower = notes("search", "whale", "in:journal")
        #expect(lower.status == 2)
        #expect(
            lower.stderr.contains("there is no journal in the workspace (did you mean Journal?)"),
            "\(lower.stderr)")
        let lowerUp = notes("list", "../journal", in: research)
        #expect(lowerUp.stderr.contains("did you mean ../Journal?"), "\(lowerUp.stderr)")
        let lowerAbove = notes("search", "whale", "in:journal", in: research)
        #expect(lowerAbove.stderr.contains("did you mean ../Journal?"), "\(lowerAbove.stderr)")
        let root = notes("search", "whale", "in:Nowhere")
        #expect(root.status == 2)
        #expect(root.stderr.contains("there is no Nowhere in the workspace"), "\(root.stderr)")
        // A file given to list.
        let file = notes("list", "../context.md", in: research)
        #expect(file.status == 2)
        #expect(file.stderr.contains("../context.md is a file, not a folder"), "\(file.stderr)")
        // --in with an absolute path inside the workspace, from a subfolder.
        let absolute = notes(
            "search", "whale", "--in", notes.workspace + "/Journal", "-l", in: research)
        #expect(absolute.status == 0, "\(absolute.stderr)")
        #expect(lines(absolute.stdout) == ["../Journal/2026-11-20.md"], "\(absolute.stdout)")
    }

    @Test func inAndPathAreTypedFromTheCurrentFolder() {
        let flag = notes("search", "whale", "--in", "moby-dick", "-l", in: research)
        #expect(flag.status == 0, "\(flag.stderr)")
        #expect(
            !lines(flag.stdout).isEmpty
                && lines(flag.stdout).allSatisfy { $0.hasPrefix("moby-dick/") }, "\(flag.stdout)")
        let inline = notes("search", "whale in:moby-dick", "-l", in: research)
        #expect(inline.stdout == flag.stdout)
        let up = notes("search", "whale", "--in", "../Journal", "-l", in: research)
        #expect(lines(up.stdout) == ["../Journal/2026-11-20.md"], "\(up.stdout) \(up.stderr)")
        let glob = notes("search", "whale", "path:moby-dick/*.md", "-l", in: research)
        #expect(
            !lines(glob.stdout).isEmpty
                && lines(glob.stdout).allSatisfy {
                    $0.hasPrefix("moby-dick/") && !$0.dropFirst(10).contains("/")
                }, "\(glob.stdout)")
        #expect(
            notes("search", "whale", "--path", "moby-dick/*.md", "-l", in: research).stdout
                == glob.stdout)
    }

    @Test func aFolderThatDoesNotExistIsStillAnError() {
        for result in [
            notes("search", "whale", "--in", "Nowhere", in: research),
            notes("search", "whale in:Nowhere", in: research),
            notes("list", "Nowhere", in: research),
        ] {
            #expect(result.status == 2 && result.stdout.isEmpty)
            #expect(
                lines(result.stderr).count == 1 && result.stderr.contains("Nowhere"),
                "\(result.stderr)")
        }
        // Typed from Research/, Research/moby-dick is Research/Research/moby-dick: no fallback to the root.
        #expect(notes("search", "whale", "--in", "Research/moby-dick", in: research).status == 2)
        #expect(notes("read", "Research/moby-dick/notes.md", in: research).status == 2)
        #expect(
            notes("search", "whale", "--in", "../..", in: research).stderr.contains(
                "leaves the workspace"))
    }

    /// A search limited to a file search does not look inside (a `.log`; a book past
    /// `limits.index_max_bytes`) says so and how to read it, instead of "no hits".
    @Test func aFileSearchDoesNotLookInsideIsAnErrorNamingHowToReadIt() throws {
        try "error: disk full\n".write(
            toFile: research + "/server.log", atomically: true, encoding: .utf8)
        for result in [
            notes("search", "disk", "--path", "server.log", in: research),
            notes("search", "disk", "--in", "server.log", in: research),
            notes("search", "disk in:server.log", in: research),
        ] {
            #expect(result.status == 2 && result.stdout.isEmpty)
            #expect(
                lines(result.stderr).count == 1
                    && result.stderr.contains("search does not look inside server.log:")
                    && result.stderr.contains("`notes read server.log` prints it"),
                "\(result.stderr)")
        }
        let related = notes("related", "server.log", in: research)
        #expect(
            related.status == 2 && related.stderr.contains("has no related notes"),
            "\(related.stderr)")
        let read = notes("read", "server.log", in: research)
        #expect(read.status == 0 && read.stdout.contains("error: disk full"), "\(read.stderr)")
        // A searched file in the same place still answers.
        #expect(notes("search", "whale", "--in", "moby-dick/notes.md", in: research).status == 0)

        // Past the size limit the index lists the book but does not hold its text. The
        // files are made older and indexed first: files saved within 2 s are read again by
        // every refresh, which would apply a new limit without D274.
        let files = FileManager.default.enumerator(atPath: notes.workspace)
        while let path = files?.nextObject() as? String {
            guard !path.hasPrefix(".notes") else { continue }
            try FileManager.default.setAttributes(
                [.modificationDate: Date().addingTimeInterval(-3600)],
                ofItemAtPath: notes.workspace + "/" + path)
        }
        #expect(notes("status").status == 0)
        let config = notes.workspace + "/.notes/config.yml"
        let settings = try String(contentsOfFile: config, encoding: .utf8)
        try (settings + "limits:\n  index_max_bytes: 200000\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        // The next command applies a new limit to the files it moves across, unchanged.
        let big = notes("search", "whale", "--in", "moby-dick/full_text.txt", in: research)
        #expect(
            big.status == 2
                && big.stderr.contains(
                    "search does not look inside moby-dick/full_text.txt: it indexes Markdown, .txt and Chats/*.json files up to 195 KB"
                ), "\(big.stderr)")
        // Back to the default: the book is searched again.
        try settings.write(toFile: config, atomically: true, encoding: .utf8)
        let again = notes("search", "whale", "--in", "moby-dick/full_text.txt", "-l", in: research)
        #expect(again.status == 0 && again.stdout == "moby-dick/full_text.txt\n", "\(again.stderr)")
    }

    @Test func listShowsTheCurrentFolderWithPathsFromIt() throws {
        let folder = research + "/moby-dick"
        let plain = lines(notes("list", in: folder).stdout)
        #expect(plain.first == "sources/  4 file(s)", "\(plain)")
        #expect(plain.contains { $0.hasPrefix("notes.md ") }, "\(plain)")
        let listing = try json("list", "--recursive", "--json", in: folder)
        let paths = try #require(listing["files"] as? [[String: Any]]).compactMap {
            $0["path"] as? String
        }
        #expect(
            paths.contains("sources/essex-disaster.md") && paths.contains("notes.md"), "\(paths)")
        let journal = lines(notes("list", "../../Journal", in: folder).stdout)
        #expect(journal.contains { $0.hasPrefix("../../Journal/2026-11-20.md ") }, "\(journal)")
        let tree = notes("list", "--tree", in: folder).stdout
        #expect(
            tree.hasPrefix(".\n")
                && tree.contains("\n  sources/\n    cetology-glossary.md  Whaling terms"), "\(tree)"
        )
        let glob = lines(notes("list", "--glob", "sources/*.md", in: folder).stdout)
        #expect(glob.count == 4 && glob.allSatisfy { $0.hasPrefix("sources/") }, "\(glob)")
    }

    @Test func changesHistoryAndLogUseTheCurrentFolder() throws {
        let appended = notes("append", "moby-dick/notes.md", "- a line from Research", in: research)
        #expect(appended.status == 0, "\(appended.stderr)")
        #expect(appended.stdout.hasPrefix("appended to moby-dick/notes.md"), "\(appended.stdout)")
        #expect(
            try String(contentsOfFile: research + "/moby-dick/notes.md", encoding: .utf8).contains(
                "- a line from Research"))
        #expect(!FileManager.default.fileExists(atPath: research + "/Research"))
        #expect(
            notes("append", "../Journal/2026-11-20.md", "- and one in the journal", in: research)
                .status == 0)
        let log = lines(notes("log", in: research).stdout)
        #expect(
            log.count == 2 && log[0].contains("  ../Journal/2026-11-20.md  ")
                && log[1].contains("  moby-dick/notes.md  "), "\(log)")
        let logJSON = try json("log", "--json", in: research)
        let logged = try #require(logJSON["changes"] as? [[String: Any]]).compactMap {
            $0["path"] as? String
        }
        #expect(logged == ["../Journal/2026-11-20.md", "moby-dick/notes.md"])
        #expect(lines(notes("log", "moby-dick/notes.md", in: research).stdout).count == 1)
        let history = notes("history", "moby-dick/notes.md", in: research)
        #expect(
            history.status == 0 && lines(history.stdout).count == 1
                && history.stdout.contains("append"), "\(history.stdout)")
        let records = run(
            Repository.notesBinary, ["history", "moby-dick/notes.md", "--json"],
            environment: notes.environment, directory: research
        ).stdout
        #expect(records.contains("\"path\" : \"moby-dick/notes.md\""), "\(records)")
        let moved = notes("mv", "moby-dick/notes.md", "moby-dick/notes-moved.md", in: research)
        #expect(
            moved.stdout.hasPrefix("moved moby-dick/notes.md → moby-dick/notes-moved.md"),
            "\(moved.stdout) \(moved.stderr)")
        #expect(
            notes("history", "moby-dick/notes-moved.md", in: research).stdout.contains(
                "moby-dick/notes.md → moby-dick/notes-moved.md"))
    }

    @Test func printedPathsRoundTripFromASubfolder() throws {
        let folder = research + "/moby-dick/sources"
        let paths = lines(notes("search", "whale", "-l", in: folder).stdout)
        #expect(
            paths.contains("../notes.md") && paths.contains("../../../Journal/2026-11-20.md"),
            "\(paths)")
        for path in paths {
            let read = notes("read", path, in: folder)
            #expect(read.status == 0 && !read.stdout.isEmpty, "\(path): \(read.stderr)")
            #expect(notes("history", path, in: folder).status == 0, "\(path)")
        }
        let doc = try json("search", "Ishmael", "--json", in: folder)
        for hit in try #require(doc["hits"] as? [[String: Any]]) {
            let path = try #require(hit["path"] as? String)
            #expect(notes("read", path, in: folder).status == 0, "\(path)")
            #expect(
                FileManager.default.fileExists(atPath: folder + "/" + path),
                "\(path) as printed names the file from where it was printed")
        }
    }

    @Test func aNamedWorkspaceKeepsWorkspaceRelativePaths() {
        let fromRoot = notes("search", "whale", "-l").stdout
        #expect(!fromRoot.isEmpty)
        #expect(
            notes("-w", notes.workspace, "search", "whale", "-l", in: research).stdout == fromRoot)
        let env = run(
            Repository.notesBinary, ["search", "whale", "-l"],
            environment: notes.environment.merging(["NOTES_WORKSPACE": notes.workspace]) { $1 },
            directory: research)
        #expect(env.stdout == fromRoot)
        // Typed paths too: relative to the root, as `git -C DIR`.
        #expect(
            notes("-w", notes.workspace, "read", "Research/moby-dick/notes.md", in: research).status
                == 0)
        #expect(
            notes(
                "-w", notes.workspace, "search", "whale", "--in", "Research/moby-dick", "-l",
                in: research
            ).status == 0)
        #expect(notes("-w", notes.workspace, "list", in: research).stdout == notes("list").stdout)
    }

    @Test func statusNamesConflictCopiesFromTheCurrentFolder() throws {
        try "copy".write(
            toFile: research + "/moby-dick/notes.sync-conflict-20261121-101010-ABC.md",
            atomically: true, encoding: .utf8)
        let status = notes("status", in: research)
        #expect(
            status.stdout.contains(
                "  moby-dick/notes.sync-conflict-20261121-101010-ABC.md  conflicts with moby-dick/notes.md"
            ), "\(status.stdout)")
        let root = notes("status")
        #expect(
            root.stdout.contains(
                "  Research/moby-dick/notes.sync-conflict-20261121-101010-ABC.md  conflicts with Research/moby-dick/notes.md"
            ))
    }
}
