import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Runs the built `notes` binary the way a person or a script does.
struct NotesRunner {
    let dir = TemporaryDirectory(prefix: "notes-cli")
    var workspace: String { dir.path + "/ws" }
    var environment: [String: String] { ["NOTES_INDEX_DIR": dir.path + "/index", "NO_COLOR": "1"] }

    init(copySample: Bool = true) {
        if copySample { _ = dir.copy(tree: Repository.sampleWorkspace, to: "ws") }
    }

    func callAsFunction(_ arguments: String..., stdin: String? = nil, in directory: String? = nil)
        -> ProcessResult
    {
        run(
            Repository.notesBinary, arguments, environment: environment,
            directory: directory ?? workspace, stdin: stdin)
    }

    func json(_ arguments: String...) throws -> [String: Any] {
        let result = run(
            Repository.notesBinary, arguments, environment: environment, directory: workspace)
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stderr)")
    }
}

@Suite(.serialized) struct SearchCommandTests {
    let notes = NotesRunner()

    /// A note's title typed as the query matches its first heading, which the hit already
    /// shows as its title: the snippet is the text under it, not the heading again.
    @Test func aTitleMatchShowsTheTextUnderTheHeading() throws {
        let doc = try notes.json("search", "reading list", "--json")
        let hits = try #require(doc["hits"] as? [[String: Any]])
        let first = try #require(hits.first)
        #expect(first["path"] as? String == "reading-list.md")
        let snippet = try #require((first["snippets"] as? [[String: Any]])?.first)
        #expect(snippet["line"] as? Int == 3, "\(snippet)")
        #expect((snippet["text"] as? String)?.hasPrefix("Herman Melville") == true, "\(snippet)")
        // A heading further down that holds the words is still shown as the match.
        let lower = try notes.json(
            "search", "\"Chapter 42\"", "--in", "Research/moby-dick/notes.md", "--json")
        let shown = try #require(
            ((lower["hits"] as? [[String: Any]])?.first?["snippets"] as? [[String: Any]])?.first)
        #expect(shown["line"] as? Int == 30, "\(shown)")
        #expect(shown["text"] as? String == "Chapter 42 — The Whiteness of the Whale", "\(shown)")
    }

    @Test func searchWhaleFindsTheBookWithChapterAndLine() throws {
        let result = notes("search", "whale", "--limit", "50")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.lines()
        let header = try #require(
            lines.firstIndex { $0.hasPrefix("Research/moby-dick/full_text.txt") })
        #expect(lines[header].contains("Moby Dick; or The Whale"))
        let following = lines[(header + 1)...].prefix { $0.hasPrefix("  ") }
        #expect(following.contains { $0.contains("CHAPTER") })
        #expect(
            following.contains { $0.range(of: #"^  \d+: "#, options: .regularExpression) != nil })
        #expect(!result.stdout.contains("\u{1B}["), "no color on a pipe")
    }

    @Test func exitStatusIsLikeGrep() {
        #expect(notes("search", "whale").status == 0)
        let none = notes("search", "xylophonequartz")
        #expect(none.status == 1 && none.stdout.isEmpty)
        let bad = notes("search", "kind:robot")
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("notes: unknown kind 'robot'"))
        #expect(bad.stderr.lines().filter { !$0.isEmpty }.count == 1)
        let usage = notes("search", "--limit", "-3")
        #expect(usage.status == 2 && usage.stderr.hasPrefix("notes: "))
    }

    @Test func jsonJsonlPathsAndFormatOutputs() throws {
        let doc = try notes.json("search", "Ishmael", "--json")
        let hits = try #require(doc["hits"] as? [[String: Any]])
        #expect(!hits.isEmpty)
        for hit in hits {
            for key in [
                "path", "title", "kind", "score", "version", "provenance", "snippets", "size",
            ] { #expect(hit[key] != nil, "\(key)") }
        }
        let jsonl = notes("search", "Ishmael", "--jsonl")
        #expect(jsonl.stdout.lines().filter { !$0.isEmpty }.count == hits.count)
        let paths = notes("search", "Ishmael", "-l").stdout.lines().filter { !$0.isEmpty }
        #expect(paths.map(String.init) == hits.map { $0["path"] as! String })
        let formatted = notes(
            "search", "Queequeg", "in:Research/moby-dick/full_text.txt", "--format",
            "{{path}}:{{line}} {{section}}")
        #expect(formatted.stdout.hasPrefix("Research/moby-dick/full_text.txt:"))
        // Every placeholder the error lists is filled for a hit with provenance; a misspelt
        // one is an error, not an empty column.
        let everyField = notes(
            "search", "Queequeg", "in:Research/moby-dick/notes.md", "--format",
            "{{path}}|{{title}}|{{line}}|{{section}}|{{snippet}}|{{score}}|{{version}}|{{kind}}|{{size}}|{{created_by}}|{{created_at}}|{{last_modified_by}}|{{last_modified_at}}"
        )
        #expect(everyField.status == 0, "\(everyField.stderr)")
        let columns = everyField.stdout.lines().first.map {
            $0.split(separator: "|", omittingEmptySubsequences: false)
        }
        #expect(
            columns?.count == 13 && columns?.allSatisfy { !$0.isEmpty } == true,
            "\(everyField.stdout)")
        let misspelt = notes("search", "Queequeg", "--format", "{{path}} {{snipet}}")
        #expect(misspelt.status == 2)
        #expect(misspelt.stdout.isEmpty)
        #expect(
            misspelt.stderr.contains(
                "--format has no placeholder {{snipet}} (did you mean {{snippet}}?)"),
            "\(misspelt.stderr)")
        // A name near none of them gets the list.
        let unknown = notes("search", "Queequeg", "--format", "{{path}} {{colour}}")
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr.contains("--format has no placeholder {{colour}} (use {{path}}"),
            "\(unknown.stderr)")
        let section = notes("search", "Queequeg", "--format", "{{#missing}}x{{/missing}}{{path}}")
        #expect(section.status == 2, "\(section.stdout)")
        // Inside an inverted section too.
        let inverted = notes(
            "search", "Queequeg", "--format", "{{path}}{{^snippet}} {{titel}}{{/snippet}}")
        #expect(inverted.status == 2)
        #expect(inverted.stderr.contains("{{titel}}"), "\(inverted.stderr)")
        // Checked as printed: escapes expanded, sections of known names accepted.
        let fine = notes(
            "search", "Queequeg", "in:Research/moby-dick/notes.md", "--format",
            "{{path}}\\t{{#section}}[{{section}}]{{/section}}{{^section}}-{{/section}}")
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(fine.stdout.hasPrefix("Research/moby-dick/notes.md\t["), "\(fine.stdout)")
        let error = try notes.json("search", "by:robot", "--json")
        #expect((error["error"] as? [String: Any])?["code"] as? String == "invalid_argument")
    }

    @Test func filtersAsFlagsAndInTheQuery() {
        let flags = notes("search", "whale", "--kind", "journal", "-l").stdout
        let inline = notes("search", "whale kind:journal", "-l").stdout
        #expect(flags == inline)
        #expect(flags.lines().allSatisfy { $0.isEmpty || $0.hasPrefix("Journal/") })
        let byAgent = notes("search", "--by", "agent", "--kind", "research", "-l").stdout
        #expect(byAgent.contains("Research/moby-dick/sources/essex-disaster.md"))
        #expect(!byAgent.contains("Research/moby-dick/notes.md"))
        let edited = notes("search", "edited-by:user", "in:Research/moby-dick", "-l").stdout
        #expect(edited.contains("Research/moby-dick/introduction.md"))
        #expect(
            notes("search", "后台执行", "-l").stdout
                == "Research/moby-dick/sources/chinese-translation-note.md\n")
        #expect(
            notes("search", "--meta", "status=draft", "-l").stdout
                == "Research/moby-dick/introduction.md\n")
    }

    @Test func aDashedWordExcludesInsteadOfBeingReadAsFlags() {
        let all = notes("search", "whale", "-l").stdout
        let without = notes("search", "whale", "-Ahab", "-l")
        #expect(without.status == 0, "\(without.stderr)")
        #expect(all.contains("Research/moby-dick/introduction.md"))
        #expect(!without.stdout.contains("Research/moby-dick/introduction.md"))
        #expect(!without.stdout.contains("OVERVIEW"))
    }

    @Test func hostileQueryTextIsLiteral() {
        for query in ["what?", "current.md", "foo-bar", "\"unbalanced", "NEAR(", "a AND"] {
            let result = notes("search", query)
            #expect(result.status == 0 || result.status == 1, "\(query): \(result.stderr)")
        }
        // No word to search for: one line, exit 2 (never every document).
        for query in ["-", "*", "(((", "\u{7}", "***", "!!!"] {
            let result = notes("search", query)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(query): \(result.stdout)")
            #expect(
                result.stderr.contains("has no words to search for")
                    && result.stderr.split(separator: "\n").count == 1, "\(query): \(result.stderr)"
            )
        }
    }

    @Test func searchSeesEditsMadeJustBefore() throws {
        #expect(notes("search", "zanzibarquill").status == 1)
        try "A new thought about zanzibarquill.\n".write(
            toFile: notes.workspace + "/Research/new.md", atomically: true, encoding: .utf8)
        #expect(notes("search", "zanzibarquill", "-l").stdout == "Research/new.md\n")
        try FileManager.default.removeItem(atPath: notes.workspace + "/Research/new.md")
        #expect(notes("search", "zanzibarquill").status == 1)
    }
}

/// The walk skips listing folders that have not changed for 2 s (folder stamps): the real
/// binary must still see every change below such folders.
@Suite struct SettledFolderTests {
    let notes = NotesRunner()

    @Test func searchSeesChangesBelowFoldersThatSettled() throws {
        #expect(notes("search", "whale", "-l").status == 0)
        usleep(2_200_000)  // every folder now older than the 2 s the stamps wait for
        #expect(notes("search", "whale", "-l").status == 0)  // this walk stamps them
        // Nothing left to write: this one leaves the layout snapshot the next search stats
        // from (Sources/NotesIndex/LayoutSnapshot.swift); the changes below must still be found.
        #expect(notes("search", "whale", "-l").status == 0)
        #expect(FileManager.default.fileExists(atPath: notes.dir.path + "/index/index.layout"))
        let research = notes.workspace + "/Research"
        let topic = try #require(
            try FileManager.default.contentsOfDirectory(atPath: research).sorted().first)

        // An edit in place first, while every folder is stamped: found by the file's own stat.
        let existing = try #require(
            try FileManager.default.contentsOfDirectory(atPath: "\(research)/\(topic)").sorted()
                .first { $0.hasSuffix(".md") })
        let handle = try #require(FileHandle(forWritingAtPath: "\(research)/\(topic)/\(existing)"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\nAnd of marmosetlantern.\n".utf8))
        try handle.close()
        #expect(
            notes("search", "marmosetlantern", "-l").stdout == "Research/\(topic)/\(existing)\n")

        try "A note about quagmirefinch.\n".write(
            toFile: "\(research)/\(topic)/added.md", atomically: false, encoding: .utf8)
        #expect(notes("search", "quagmirefinch", "-l").stdout == "Research/\(topic)/added.md\n")

        try FileManager.default.createDirectory(
            atPath: "\(research)/\(topic)/deeper/still", withIntermediateDirectories: true)
        try "Hidden deep: ottervellum.\n".write(
            toFile: "\(research)/\(topic)/deeper/still/deep.md", atomically: true, encoding: .utf8)
        #expect(
            notes("search", "ottervellum", "-l").stdout
                == "Research/\(topic)/deeper/still/deep.md\n")

        try FileManager.default.removeItem(atPath: "\(research)/\(topic)/added.md")
        #expect(notes("search", "quagmirefinch").status == 1)
    }
}

/// libcrypto is opened once a process has hashed a quarter megabyte (Sources/CCrypto/shim.h),
/// not at start: a search with nothing to re-read never loads it (the workspace path that
/// names the index folder is hashed by the portable code), nor does re-indexing a small
/// note; indexing half a megabyte of new text does.
/// Observed through glibc's loader log (`LD_DEBUG=files` names every library it opens,
/// dlopen included).
@Suite struct LibraryLoadingTests {
    let notes = NotesRunner()

    @Test func libcryptoIsLoadedOnlyOnceMuchIsHashed() throws {
        // Files older than the 2 s the index distrusts, so the search re-reads none of them.
        let past = Date(timeIntervalSinceNow: -3600)
        let files = try #require(FileManager.default.enumerator(atPath: notes.workspace))
        for case let name as String in files {
            try FileManager.default.setAttributes(
                [.modificationDate: past], ofItemAtPath: notes.workspace + "/" + name)
        }
        #expect(notes("index").status == 0)
        func logged(_ arguments: [String], defaultIndexFolder: Bool = false) -> ProcessResult {
            var environment = notes.environment
            environment["LD_DEBUG"] = "files"
            if defaultIndexFolder {  // named by the hash of the workspace path
                environment["NOTES_INDEX_DIR"] = nil
                environment["XDG_CACHE_HOME"] = notes.dir.path + "/cache"
            }
            return run(
                Repository.notesBinary, arguments, environment: environment,
                directory: notes.workspace)
        }
        let search = logged(["search", "whale", "-l"])
        #expect(search.status == 0)
        #expect(
            search.stderr.contains("file=libsqlite3"),
            "the loader log is on: \(search.stderr.prefix(300))")
        #expect(!search.stderr.contains("libcrypto"))
        #expect(logged(["index"], defaultIndexFolder: true).status == 0)
        let named = logged(["search", "whale", "-l"], defaultIndexFolder: true)
        #expect(named.status == 0, "\(named.stderr.suffix(300))")
        #expect(!named.stderr.contains("libcrypto"))

        // A new note of a few hundred bytes: hashed by the portable code (a process opens
        // libcrypto only once it has hashed a quarter megabyte).
        try String(
            repeating: "A longer note about quillwort, past the portable code's 128 bytes. ",
            count: 4
        )
        .write(toFile: notes.workspace + "/long.md", atomically: true, encoding: .utf8)
        let small = logged(["index"])
        #expect(small.status == 0)
        #expect(!small.stderr.contains("libcrypto"))
        #expect(notes("search", "quillwort", "-l").stdout == "long.md\n")
        // Half a megabyte of new text: libcrypto is opened.
        try String(
            repeating: "A much longer note about marshwort and its many habits. ", count: 10_000
        )
        .write(toFile: notes.workspace + "/longer.md", atomically: true, encoding: .utf8)
        let index = logged(["index"])
        #expect(index.status == 0)
        #expect(index.stderr.contains("libcrypto.so.3"))
    }

    /// A machine without libcrypto: one line saying what is missing, exit status 2, no crash
    /// report; the index is as it was (the next refresh with the library succeeds).
    @Test func aMissingLibcryptoIsOneLineAndExitStatus2() throws {
        try String(
            repeating:
                "A note long enough for libcrypto (past the portable code's quarter megabyte): bramblewick. ",
            count: 4_000
        )
        .write(toFile: notes.workspace + "/long.md", atomically: true, encoding: .utf8)
        var environment = notes.environment
        environment["NOTES_LIBCRYPTO"] = "libnotes-no-such-library.so.9"
        let failed = run(
            Repository.notesBinary, ["search", "bramblewick"], environment: environment,
            directory: notes.workspace)
        #expect(failed.status == 2)
        let lines = failed.stderr.lines().filter { !$0.isEmpty }
        #expect(lines.count == 1, "\(failed.stderr)")
        #expect(
            lines.first?.hasPrefix("notes: cannot compute SHA-256: libnotes-no-such-library.so.9")
                == true)
        #expect(
            lines.first?.hasSuffix(
                "(install OpenSSL 3's libcrypto: on Debian, apt-get install libssl3)") == true)
        let found = notes("search", "bramblewick", "-l")
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout == "long.md\n")
    }
}

@Suite(.serialized) struct ReadListStatusTests {
    let notes = NotesRunner()

    @Test func readPrintsContentAndJSONWithPaging() throws {
        let plain = notes("read", "Research/moby-dick/notes.md")
        #expect(plain.status == 0)
        #expect(
            plain.stdout
                == (try String(
                    contentsOfFile: notes.workspace + "/Research/moby-dick/notes.md",
                    encoding: .utf8)))
        let page = try notes.json(
            "read", "Research/moby-dick/full_text.txt", "--offset", "849", "--limit", "3", "--json")
        #expect(page["offset"] as? Int == 849 && page["lines"] as? Int == 3)
        #expect((page["content"] as? String)?.hasPrefix("CHAPTER 1. Loomings.") == true)
        #expect((page["total_lines"] as? Int ?? 0) > 20_000)
        #expect((page["version"] as? String)?.count == 16)
        let relative = notes("read", "notes.md", in: notes.workspace + "/Research/moby-dick")
        #expect(relative.stdout == plain.stdout)
    }

    @Test func readRefusesMissingOutsideAndBinary() throws {
        let missing = notes("read", "nope.md")
        #expect(missing.status == 2 && missing.stderr.hasPrefix("notes: no file at nope.md"))
        #expect(notes("read", "../etc/passwd").stderr.contains("leaves the workspace"))
        #expect(notes("read", "/etc/passwd").status == 2)
        #expect(
            FileManager.default.createFile(
                atPath: notes.workspace + "/image.md",
                contents: Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0])))
        let binary = try notes.json("read", "image.md", "--json")
        #expect((binary["error"] as? [String: Any])?["code"] as? String == "not_text")
    }

    @Test func listShowsFilesFoldersAndTree() throws {
        let root = notes("list")
        #expect(root.stdout.contains("Research/"))
        #expect(root.stdout.contains("context.md"))
        let listing = try notes.json("list", "Research/moby-dick", "--recursive", "--json")
        let files = try #require(listing["files"] as? [[String: Any]])
        #expect(
            files.contains {
                $0["path"] as? String == "Research/moby-dick/sources/essex-disaster.md"
                    && $0["kind"] as? String == "research"
            })
        let tree = notes("list", "--tree").stdout
        #expect(tree.contains("  Research/\n    moby-dick/\n"))
        #expect(notes("list", "Nowhere").status == 2)
    }

    @Test func statusReportsProblemsAndConflictCopies() throws {
        try "---\ntitle: [broken\n---\nbody\n".write(
            toFile: notes.workspace + "/broken.md", atomically: true, encoding: .utf8)
        try "copy".write(
            toFile: notes.workspace + "/context.sync-conflict-20261121-101010-ABC.md",
            atomically: true, encoding: .utf8)
        let status = notes("status")
        #expect(status.status == 0)
        #expect(status.stdout.contains("broken.md:"))
        #expect(
            status.stdout.contains(
                "context.sync-conflict-20261121-101010-ABC.md  conflicts with context.md"))
        let json = try notes.json("status", "--json")
        #expect((json["conflict_copies"] as? [[String: Any]])?.count == 1)
        #expect(notes("search", "copy", "-l").stdout.contains("sync-conflict") == false)
    }

    @Test func indexReportsAndRebuilds() throws {
        let first = notes("index")
        #expect(first.stdout.hasPrefix("Indexed 15 files"))
        #expect(notes("index").stdout.contains("0 added, 0 modified, 0 removed"))
        let rebuilt = try notes.json("index", "--rebuild", "--json")
        #expect(rebuilt["added"] as? Int == 15)
    }
}

@Suite(.serialized) struct WorkspaceCommandTests {
    @Test func discoveryFailsClearlyAndWorksFromSubfolders() {
        let notes = NotesRunner(copySample: false)
        try? FileManager.default.createDirectory(
            atPath: notes.workspace, withIntermediateDirectories: true)
        let none = notes("search", "whale")
        #expect(none.status == 2)
        #expect(none.stderr.contains("no workspace found") && none.stderr.contains("notes init"))
        let sample = NotesRunner()
        #expect(
            sample("search", "whale", "-l", in: sample.workspace + "/Research/moby-dick/sources")
                .status == 0)
        #expect(notes("-w", sample.workspace, "search", "whale", "-l").status == 0)
    }

    @Test func initCreatesTheSkeletonAndNeverClobbers() throws {
        let notes = NotesRunner(copySample: false)
        let made = notes("init", notes.dir.path + "/fresh", in: notes.dir.path)
        #expect(made.status == 0, "\(made.stderr)")
        for path in [".notes", "Research", "Journal", "Chats", "context.md"] {
            #expect(
                FileManager.default.fileExists(atPath: notes.dir.path + "/fresh/" + path), "\(path)"
            )
        }
        let context = try String(
            contentsOfFile: notes.dir.path + "/fresh/context.md", encoding: .utf8)
        #expect(context.contains("created_by: user") && !context.contains("{{"))
        let again = notes("init", notes.dir.path + "/fresh", in: notes.dir.path)
        #expect(again.status == 2 && again.stderr.contains("already a workspace"))
        // A folder with files of its own: they stay as they were.
        try FileManager.default.createDirectory(
            atPath: notes.dir.path + "/mine", withIntermediateDirectories: true)
        try "my own context".write(
            toFile: notes.dir.path + "/mine/context.md", atomically: true, encoding: .utf8)
        let adopted = notes("init", "mine", in: notes.dir.path)
        #expect(adopted.status == 0)
        #expect(adopted.stdout.contains("kept    context.md"))
        #expect(
            try String(contentsOfFile: notes.dir.path + "/mine/context.md", encoding: .utf8)
                == "my own context")
        #expect(notes("search", "own", "-l", in: notes.dir.path + "/mine").stdout == "context.md\n")
        // An existing vault: --minimal adds only .notes/.
        try FileManager.default.createDirectory(
            atPath: notes.dir.path + "/vault/people", withIntermediateDirectories: true)
        try "# Ana\n\nA taxonomist.\n".write(
            toFile: notes.dir.path + "/vault/people/ana.md", atomically: true, encoding: .utf8)
        let outside = notes("search", "taxonomist", in: notes.dir.path + "/vault")
        #expect(outside.status == 2 && outside.stderr.contains("notes init --minimal"))
        let minimal = notes("init", "--minimal", "vault", in: notes.dir.path)
        #expect(minimal.status == 0, "\(minimal.stderr)")
        let entries = try FileManager.default.contentsOfDirectory(atPath: notes.dir.path + "/vault")
            .sorted()
        #expect(entries == [".notes", "people"])
        #expect(
            notes("search", "taxonomist", "-l", in: notes.dir.path + "/vault").stdout
                == "people/ana.md\n")
    }

    @Test func helpAndVersion() {
        let notes = NotesRunner(copySample: false)
        let help = notes("help", "search", in: notes.dir.path)
        #expect(help.status == 0 && help.stdout.contains("edited-by"))
        #expect(notes("--version", in: notes.dir.path).stdout.hasPrefix("notes 0."))
    }

    /// Every command's help names each option's default once: ArgumentParser prints
    /// `(default: …)` for an option with a default value, so the help text must not too.
    @Test func everyOptionsHelpNamesItsDefaultOnce() throws {
        let notes = NotesRunner(copySample: false)
        let overview = notes("--help", in: notes.dir.path).stdout
        let commands =
            overview.components(separatedBy: "SUBCOMMANDS:").last?.split(separator: "\n").compactMap
        { line -> String? in
            line.hasPrefix("  ") && !line.hasPrefix("   ")
                ? line.split(separator: " ").first.map(String.init) : nil
        }.filter { $0 != "See" } ?? []  // not the closing "See 'notes help <subcommand>'" line
        #expect(commands.count >= 20, "\(commands)")
        for command in commands {
            let help = notes("help", command, in: notes.dir.path)
            #expect(help.status == 0, "\(command)")
            // One entry per option: a line starting "  -" and its indented continuation lines.
            for entry in help.stdout.components(separatedBy: "\n  -").dropFirst() {
                let options = entry.components(separatedBy: "\n\n").first ?? entry
                #expect(
                    options.components(separatedBy: "(default").count <= 2,
                    "notes \(command): \(options)")
            }
        }
    }
}

@Suite(.serialized) struct GeneratedWorkspaceTests {
    @Test func aGeneratedWorkspaceWithEdgeCasesIndexesAndSearches() throws {
        let generator = Repository.workspaceGenerator
        let notes = NotesRunner(copySample: false)
        let gen = run(
            "/usr/bin/env", ["python3", generator, notes.workspace, "-n", "400", "--huge-mb", "5"])
        #expect(gen.status == 0, "\(gen.stderr)")
        let index = try notes.json("-w", notes.workspace, "index", "--json")
        let files = index["files"] as? Int ?? 0
        #expect(files >= 400)
        let diagnostics = index["diagnostics"] as? [[String: Any]] ?? []
        let flagged = Set(diagnostics.compactMap { $0["path"] as? String })
        for edge in [
            "invalid-front-matter.md", "non-mapping-front-matter.md",
            "unterminated-front-matter.md", "invalid-utf8.md",
        ] {
            #expect(flagged.contains("Research/edge-cases/" + edge), "\(edge)")
        }
        #expect(notes("-w", notes.workspace, "search", "the", "-l", "--limit", "5").status == 0)
        #expect(notes("-w", notes.workspace, "search", "kind:journal", "-l").status == 0)
        let unchanged = try notes.json("-w", notes.workspace, "index", "--json")
        #expect(unchanged["added"] as? Int == 0 && unchanged["modified"] as? Int == 0)
    }
}
