import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Issue 31 item 9 (docs/cli.md "Shell completion", decisions.md D237): the bash completion
/// script `notes --generate-completion-script bash` prints, run by a real bash against the
/// real binary, offers workspace paths as the commands take them and the values of options.
@Suite(.serialized) struct ShellCompletionTests {
    let notes = NotesRunner()

    /// The script `notes --generate-completion-script bash` prints: the same for every line
    /// completed, so generated once.
    static let script = run(Repository.notesBinary, ["--generate-completion-script", "bash"]).stdout

    /// What bash offers for `line` (ending where Tab is pressed) typed in `directory`.
    func complete(_ line: String, in directory: String? = nil) -> [String] {
        let file = notes.dir.write("notes.bash", Self.script)
        // COMP_WORDS[0] is the program the script calls back: the binary under test.
        let driver = """
            source "$1"
            COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
            read -ra COMP_WORDS <<< "$COMP_LINE"
            [[ "$COMP_LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_WORDS[0]="$3"
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
            _notes notes "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = run(
            "/bin/bash", ["-c", driver, "bash", file, line, Repository.notesBinary],
            environment: notes.environment, directory: directory ?? notes.workspace)
        return result.stdout.lines().map(String.init).filter { !$0.isEmpty }
    }

    @Test func pathsAreCompletedFromTheCurrentFolder() throws {
        let top = complete("notes read ")
        #expect(top.contains("Research/") && top.contains("context.md"), "\(top)")
        #expect(!top.contains { $0.hasPrefix(".") }, "no .notes/ nor other dot-names: \(top)")
        #expect(
            complete("notes history Research/moby-dick/")
                .contains("Research/moby-dick/introduction.md"))
        #expect(complete("notes append Jour") == ["Journal/"])
        let research = notes.workspace + "/Research"
        #expect(complete("notes read moby-dick/n", in: research) == ["moby-dick/notes.md"])
        #expect(complete("notes diff ../Jou", in: research) == ["../Journal/"])
        #expect(complete("notes read ../../", in: research).isEmpty, "not outside the workspace")
        // With -w the paths are the workspace's, from wherever the command is typed.
        #expect(
            complete("notes read -w ws Research/m", in: notes.dir.path) == ["Research/moby-dick/"])
        #expect(
            complete("notes -w ws read Research/m", in: notes.dir.path) == ["Research/moby-dick/"])
        #expect(complete("notes --workspace ws se", in: notes.dir.path) == ["search"])
    }

    @Test func ignoredNamesAndFilesForFolderArgumentsAreLeftOut() throws {
        try FileManager.default.createDirectory(
            atPath: notes.workspace + "/Research/.cache", withIntermediateDirectories: true)
        _ = notes.dir.write("ws/Research/draft.md~", "editor backup")
        _ = notes.dir.write("ws/Research/plan.sync-conflict-20261101-120000-ABC.md", "copy")
        _ = notes.dir.write("ws/Research/plan.md", "# Plan")
        #expect(
            complete("notes read Research/") == [
                "Research/moby-dick/", "Research/plan.md", "Research/whaling-history/",
            ])
        #expect(complete("notes read Research/.c").isEmpty)
        #expect(complete("notes read .notes/").isEmpty)
        #expect(complete("notes list ") == ["Chats/", "Journal/", "Research/"])
        #expect(complete("notes search whale --in R") == ["Research/"])
    }

    @Test func versionsComeFromTheFilesHistory() throws {
        #expect(notes("append", "reading-list.md", "- Typee").status == 0)
        #expect(notes("append", "reading-list.md", "- Omoo").status == 0)
        let history = notes("history", "reading-list.md", "--json")
        let records = try #require(
            try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
        let versions = records.compactMap { $0["after"] as? String }
        #expect(versions.count >= 2, "\(history.stdout)")
        let offered = complete("notes restore reading-list.md --version ")
        #expect(
            offered
                == Array(Set(versions)).sorted { a, b in
                    versions.lastIndex(of: a)! > versions.lastIndex(of: b)!
                }, "newest first: \(offered) \(versions)")
        #expect(complete("notes diff reading-list.md ") == offered)
        let research = notes.workspace + "/Research"
        #expect(complete("notes diff ../reading-list.md ", in: research) == offered)
        #expect(complete("notes restore context.md --version ").isEmpty, "no history yet")
    }

    @Test func optionValuesAreCompleted() {
        #expect(complete("notes search whale --mode ") == ["lexical", "semantic", "hybrid"])
        #expect(complete("notes search --sort m") == ["modified"])
        #expect(complete("notes list --sort ").contains("size"))
        #expect(complete("notes search --kind j") == ["journal"])
        #expect(complete("notes search --by ") == ["agent", "user"])
        #expect(complete("notes log --actor ") == ["agent", "user"])
        #expect(complete("notes read --color ") == ["auto", "always", "never"])
        #expect(complete("notes new ").contains("research"))
    }
}

/// `--color auto|always|never` (issue 31 item 9): `auto` colors on a terminal unless
/// `NO_COLOR` is set; `always` colors in a pipe too, and over `NO_COLOR`; `never` never.
@Suite(.serialized) struct ColorOptionTests {
    let notes = NotesRunner()
    static let escape = "\u{1B}["

    /// The binary's output on a pipe, with `NO_COLOR` set or not.
    func piped(_ arguments: [String], noColor: Bool) -> ProcessResult {
        var environment = notes.environment
        environment["NO_COLOR"] = noColor ? "1" : ""
        return run(
            Repository.notesBinary, arguments, environment: environment,
            directory: notes.workspace)
    }

    /// The binary's output on a terminal (util-linux `script` gives it a pseudo-terminal).
    func onTerminal(_ arguments: String, noColor: Bool) -> String {
        var environment = notes.environment
        environment["NO_COLOR"] = noColor ? "1" : ""
        environment["TERM"] = "xterm"
        return run(
            "/usr/bin/script", ["-qec", "'\(Repository.notesBinary)' " + arguments, "/dev/null"],
            environment: environment, directory: notes.workspace
        ).stdout
    }

    @Test func alwaysColorsAPipeAndNeverDoesNot() {
        let always = piped(["list", "--color", "always"], noColor: false)
        #expect(always.status == 0 && always.stdout.contains(Self.escape), "\(always.stdout)")
        let before = piped(["--color", "always", "search", "whale"], noColor: false)
        #expect(before.status == 0 && before.stdout.contains(Self.escape), "\(before.stderr)")
        #expect(piped(["list", "--color=always"], noColor: true).stdout.contains(Self.escape))
        let auto = piped(["list"], noColor: false)
        #expect(auto.status == 0 && !auto.stdout.contains(Self.escape))
        #expect(!piped(["list", "--color", "never"], noColor: false).stdout.contains(Self.escape))
    }

    @Test func autoColorsATerminalUnlessNoColorAndNeverWins() throws {
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/script"))
        #expect(onTerminal("list", noColor: false).contains(Self.escape))
        #expect(!onTerminal("list", noColor: true).contains(Self.escape))
        #expect(!onTerminal("list --color never", noColor: false).contains(Self.escape))
        #expect(onTerminal("list --color always", noColor: true).contains(Self.escape))
    }

    @Test func anUnknownChoiceIsOneLineAndExit2() {
        let bad = piped(["list", "--color", "sometimes"], noColor: false)
        #expect(bad.status == 2 && bad.stdout.isEmpty)
        #expect(bad.stderr.hasPrefix("notes: ") && bad.stderr.contains("'sometimes'"))
        #expect(bad.stderr.lines().filter { !$0.isEmpty }.count == 1)
    }

    @Test func freeTextCommandsTakeItAsAnOption() {
        let result = piped(
            ["append", "Journal/x.md", "a line", "--color", "never"], noColor: false)
        #expect(result.status == 0, "\(result.stderr)")
        let text = (try? String(contentsOfFile: notes.workspace + "/Journal/x.md", encoding: .utf8))
        #expect(text?.contains("a line") == true && text?.contains("never") == false)
    }
}

/// Faults a newcomer's trial found in the command line's handling of bad input.
@Suite(.serialized) struct CommandLineTrialTests {
    let notes = NotesRunner()

    @Test func aNegativeLimitIsRefusedByWhatItMeans() {
        let search = notes("search", "whale", "--limit", "-1")
        #expect(search.status == 2 && search.stdout.isEmpty)
        #expect(search.stderr.hasPrefix("notes: --limit must be 0 (no limit) or more"))
        #expect(search.stderr.lines().filter { !$0.isEmpty }.count == 1)
        let read = notes("read", "context.md", "--offset", "-2")
        #expect(read.status == 2 && read.stderr.hasPrefix("notes: --offset must be at least 1"))
        let log = notes("log", "--limit", "-5")
        #expect(log.status == 2 && log.stderr.hasPrefix("notes: --limit must be 0 or more"))
    }

    @Test func anUnknownCommandIsNamedWithTheNearestOne() {
        let typo = notes("serch", "whale")
        #expect(typo.status == 2 && typo.stdout.isEmpty)
        #expect(typo.stderr.hasPrefix("notes: unknown command 'serch'"), "\(typo.stderr)")
        #expect(typo.stderr.contains("did you mean `notes search`?"))
        #expect(typo.stderr.lines().filter { !$0.isEmpty }.count == 1)
        #expect(notes("-w", notes.workspace, "hsitory", "x").stderr.contains("`notes history`"))
        let far = notes("xyzzy")
        #expect(far.status == 2 && far.stderr.hasPrefix("notes: unknown command 'xyzzy'"))
        #expect(!far.stderr.contains("did you mean") && far.stderr.contains("search, read"))
    }

    @Test func initTakesItsFolderAsAnArgumentNotW() {
        let target = notes.dir.path + "/new-workspace"
        for arguments in [["init", "-w", notes.workspace, target], ["-w", target, "init"]] {
            let result = run(
                Repository.notesBinary, arguments, environment: notes.environment,
                directory: notes.dir.path)
            #expect(result.status == 2 && result.stderr.contains("notes init DIR"), "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// From a trial: `-w DIR` and `--json` typed inside an entry were read as options, which
    /// took the words out of it and wrote it into a new workspace made in a subfolder.
    @Test func optionsTypedInsideTheTextAreText() throws {
        let research = notes.workspace + "/Research"
        let journal = notes.workspace + "/Journal"
        let tip = notes(
            "journal", "Tip:", "use", "-w", "Research", "to", "pick", "it", in: research)
        #expect(tip.status == 0, "\(tip.stderr)")
        let compared = notes("journal", "I", "compared", "--json", "output", in: research)
        #expect(compared.status == 0 && !compared.stdout.hasPrefix("{"), "\(compared.stdout)")
        let spaced = notes("journal", "--json is cool", in: research)
        #expect(spaced.status == 0, "\(spaced.stderr)")
        // Today's page, whatever the local date (the entries are the only ones today).
        let page = try FileManager.default.contentsOfDirectory(atPath: journal).map {
            try String(contentsOfFile: journal + "/" + $0, encoding: .utf8)
        }.joined()
        for entry in [
            "Tip: use -w Research to pick it", "I compared --json output", "--json is cool",
        ] {
            #expect(page.contains("\n" + entry + "\n"), "\(entry) in \(page)")
        }
        #expect(!FileManager.default.fileExists(atPath: research + "/.notes"))
        #expect(!FileManager.default.fileExists(atPath: research + "/Journal"))

        // An option's value may hold spaces (`--section="About me"`, a workspace folder
        // named with a space).
        let folder = notes.dir.path + "/My Notes"
        _ = notes.dir.copy(tree: Repository.sampleWorkspace, to: "My Notes")
        let named = notes("--workspace=" + folder, "journal", "an", "entry", in: research)
        #expect(named.status == 0, "\(named.stderr)")
        let spacedJournal = try FileManager.default.contentsOfDirectory(atPath: folder + "/Journal")
            .map { try String(contentsOfFile: folder + "/Journal/" + $0, encoding: .utf8) }.joined()
        #expect(spacedJournal.contains("\nan entry\n") && !spacedJournal.contains("--workspace"))
        let section = notes("remember", "Reads", "slowly", "--section=About me", in: research)
        #expect(section.status == 0, "\(section.stderr)")
        let about = try String(contentsOfFile: notes.workspace + "/context.md", encoding: .utf8)
        #expect(about.contains("Reads slowly") && !about.contains("--section"), "\(about)")

        // Before the text and after it, options stay options.
        let remembered = notes(
            "remember", "Reads", "on", "the", "train", "--section", "About me", "--json")
        #expect(remembered.status == 0 && remembered.stdout.hasPrefix("{"), "\(remembered.stderr)")
        let context = try String(contentsOfFile: notes.workspace + "/context.md", encoding: .utf8)
        let aboutMe = try #require(context.range(of: "## About me"))
        let learned = try #require(context.range(of: "## Learned"))
        let fact = try #require(context.range(of: "Reads on the train"))
        #expect(aboutMe.upperBound < fact.lowerBound && fact.lowerBound < learned.lowerBound)
        let appended = notes(
            "append", "moby-dick/notes.md", "--section", "Chapter 1 — Loomings", "- on the train",
            in: research)
        #expect(appended.status == 0, "\(appended.stderr)")
        let notesText = try String(
            contentsOfFile: research + "/moby-dick/notes.md", encoding: .utf8)
        #expect(notesText.contains("- on the train\n") && !notesText.contains("--section"))
    }

    /// A folder inside the workspace named by -w is no workspace of its own: refused, and
    /// nothing is written there.
    @Test func aFolderInsideTheWorkspaceIsNoWorkspace() {
        for arguments in [
            ["-w", "Research", "journal", "an entry"], ["journal", "-w", "Research", "an entry"],
            ["-w", "Research", "search", "whale"],
        ] {
            let result = run(
                Repository.notesBinary, arguments, environment: notes.environment,
                directory: notes.workspace)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments)")
            #expect(
                result.stderr.hasPrefix("notes: ")
                    && result.stderr.contains("is a folder inside the workspace")
                    && result.stderr.contains("notes init --nested")
                    && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: notes.workspace + "/Research/.notes"))
        // Made a workspace of its own, it is one.
        #expect(notes("init", "--nested", "--minimal", "Research").status == 0)
        #expect(notes("-w", "Research", "journal", "an entry").status == 0)
    }

    /// Smaller faults of a trial: --json before the command, an age's format, a restore of
    /// a path with no history, a version typed short.
    @Test func smallerFaultsOfATrial() throws {
        // A file read from a subfolder after `notes rm` or `notes mv`: what happened, with
        // paths from here.
        let research = notes.workspace + "/Research"
        #expect(notes("write", "Journal/café ideas.md", stdin: "# Café\n").status == 0)
        #expect(notes("rm", "Journal/café ideas.md").status == 0)
        let deleted = notes("read", "../Journal/café ideas.md", in: research)
        #expect(
            deleted.status == 2
                && deleted.stderr.hasPrefix("notes: ../Journal/café ideas.md was deleted (user, ")
                && deleted.stderr.contains(
                    "`notes restore '../Journal/café ideas.md'` brings it back"),
            "\(deleted.stderr)")
        #expect(notes("mv", "reading-list.md", "Research/reading-list.md").status == 0)
        let moved = notes("read", "../reading-list.md", in: research)
        #expect(
            moved.stderr.hasPrefix(
                "notes: ../reading-list.md was moved to reading-list.md (user, "),
            "\(moved.stderr)")
        #expect(notes("mv", "Research/reading-list.md", "reading-list.md").status == 0)
        #expect(
            notes("read", "nope.md", in: research).stderr.hasPrefix("notes: no file at nope.md"))
        let whole = notes("read", "reading-list.md", "--limit", "0")
        #expect(whole.status == 0 && whole.stdout.contains("Call Me Ishmael"), "\(whole.stderr)")
        let folder = notes("write", "Research/", stdin: "x\n")
        #expect(
            folder.status == 2 && folder.stderr.contains("Research is a folder, not a file"),
            "\(folder.stderr)")
        let json = notes("--json", "status")
        #expect(json.status == 0 && json.stdout.hasPrefix("{"), "\(json.stderr)")
        let age = notes("log", "--since", "yesterday")
        #expect(
            age.status == 2 && age.stderr.contains("such as 90s, 30m, 12h, 7d"), "\(age.stderr)")
        let nothing = notes("restore", "nope.md")
        #expect(
            nothing.status == 2 && nothing.stderr.contains("nope.md has no history")
                && !nothing.stderr.contains("notes history"), "\(nothing.stderr)")
        #expect(notes("write", "ideas.md", stdin: "one\n").status == 0)
        #expect(notes("append", "ideas.md", "two").status == 0)
        let records = try #require(
            try JSONSerialization.jsonObject(
                with: Data(notes("history", "ideas.md", "--json").stdout.utf8)) as? [[String: Any]])
        let first = try #require(records.first?["after"] as? String)
        let short = notes("restore", "ideas.md", "--version", String(first.prefix(6)))
        #expect(short.status == 0 && short.stdout.contains(first), "\(short.stderr)")
        let restored = try String(contentsOfFile: notes.workspace + "/ideas.md", encoding: .utf8)
        #expect(restored.hasSuffix("one\n") && !restored.contains("two"), "\(restored)")
        #expect(notes("restore", "ideas.md", "--version", String(first.prefix(3))).status == 2)
    }

    /// A file notes wrote that the person removes or moves by hand: the next command's
    /// refresh logs it as their change, once; notes' own removals are not logged twice.
    @Test func filesRemovedOrMovedByHandAreLoggedOnce() throws {
        let fm = FileManager.default
        for name in ["gone.md", "moving.md", "removed.md"] {
            #expect(notes("write", name, stdin: "# \(name)\n\ntext of \(name)\n").status == 0)
        }
        #expect(notes("status").status == 0)
        try fm.removeItem(atPath: notes.workspace + "/gone.md")
        try fm.moveItem(
            atPath: notes.workspace + "/moving.md", toPath: notes.workspace + "/moved.md")
        #expect(notes("rm", "removed.md").status == 0)
        #expect(notes("status").status == 0)
        #expect(notes("status").status == 0)
        let gone = notes("history", "gone.md").stdout
        #expect(
            gone.lines().first?.contains("delete    outside notes") == true
                && gone.components(separatedBy: "outside notes").count == 2, "\(gone)")
        let moved = notes("history", "moving.md").stdout
        #expect(
            moved.lines().first?.contains("move      outside notes  moving.md → moved.md") == true,
            "\(moved)")
        let removed = notes("history", "removed.md").stdout
        #expect(
            !removed.contains("outside notes") && removed.lines().filter { !$0.isEmpty }.count == 2,
            "\(removed)")

        // Still on disk, only newly ignored: no delete. Gone beside a copy with a history of
        // its own: a delete, not a move onto the copy.
        for name in ["kept.md", "twin1.md", "twin2.md"] {
            #expect(notes("write", name, stdin: "# Twin\n\nthe same words\n").status == 0)
        }
        #expect(notes("status").status == 0)
        let config = notes.workspace + "/.notes/config.yml"
        let settings = try String(contentsOfFile: config, encoding: .utf8)
        try (settings + "ignore:\n  - kept.md\n").write(
            toFile: config, atomically: true, encoding: .utf8)
        try fm.removeItem(atPath: notes.workspace + "/twin1.md")
        #expect(notes("status").status == 0)
        #expect(!notes("history", "kept.md").stdout.contains("outside notes"))
        let twin = notes("history", "twin1.md").stdout
        #expect(twin.lines().first?.contains("delete    outside notes") == true, "\(twin)")
        #expect(notes("history", "twin2.md").stdout.lines().filter { !$0.isEmpty }.count == 1)
    }

    @Test func indexPrintsItsSummaryOnAPipe() {
        let index = notes("index")
        #expect(index.status == 0)
        #expect(index.stdout.hasPrefix("Indexed 15 files"), "\(index.stdout)")
    }
}

/// A copied workspace (`cp -r`: new inodes, new mtimes) keeps the agent's provenance: an
/// outside edit is a change of the bytes, never of the file's times or identity.
@Suite(.serialized) struct CopiedWorkspaceTests {
    let notes = NotesRunner()

    /// Writes `files` as the agent, over MCP (raw JSON-RPC to `notes mcp`).
    func writeAsAgent(_ files: [String: String]) throws {
        var requests = [
            #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"copy-test","version":"1"}}}"#,
            #"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        ]
        for (n, (path, text)) in files.sorted(by: { $0.key < $1.key }).enumerated() {
            let arguments = try JSONSerialization.data(withJSONObject: [
                "path": path, "content": text,
            ])
            requests.append(
                #"{"jsonrpc":"2.0","id":\#(n + 2),"method":"tools/call","params":{"name":"write_file","arguments":"#
                    + String(decoding: arguments, as: UTF8.self) + "}}")
        }
        let session = notes(
            "mcp", "-w", notes.workspace, stdin: requests.joined(separator: "\n") + "\n")
        #expect(!session.stdout.contains(#""isError":true"#), "\(session.stdout)")
    }

    @Test func copyingTheWorkspaceIsNoEditByThePerson() throws {
        try writeAsAgent([
            "Research/agent-note.md": "# Agent note\n\nWritten by the agent.\n",
            "Research/agent-data.txt": "plain text the agent wrote\n",
        ])
        #expect(notes("index").status == 0)
        let copy = notes.dir.path + "/copy"
        #expect(run("/bin/cp", ["-r", notes.workspace, copy]).status == 0)
        // Later times than any the log holds, whatever cp kept.
        let later = Date().addingTimeInterval(3600)
        for name in ["agent-note.md", "agent-data.txt"] {
            try FileManager.default.setAttributes(
                [.modificationDate: later], ofItemAtPath: copy + "/Research/" + name)
        }
        let index = ["--index-dir", notes.dir.path + "/copy-index"]
        for (indexArguments, label) in [
            ([String](), "the original's index"), (index, "a new index"),
        ] {
            let listed = run(
                Repository.notesBinary,
                ["-w", copy, "list", "Research", "--json"] + indexArguments,
                environment: notes.environment)
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any],
                "\(listed.stderr)")
            let files = try #require(json["files"] as? [[String: Any]])
            for name in ["Research/agent-note.md", "Research/agent-data.txt"] {
                let file = try #require(files.first { $0["path"] as? String == name }, "\(name)")
                let provenance = file["provenance"] as? [String: Any]
                #expect(provenance?["last_modified_by"] as? String == "agent", "\(name), \(label)")
            }
            let history = run(
                Repository.notesBinary,
                ["-w", copy, "history", "Research/agent-data.txt"] + indexArguments,
                environment: notes.environment)
            #expect(history.stdout.contains("← current"), "\(history.stdout)")
            #expect(!history.stdout.contains("edited outside notes"), "\(label)")
        }
        let log = run(
            Repository.notesBinary, ["-w", copy, "log", "--json"], environment: notes.environment)
        #expect(!log.stdout.contains("external"), "\(log.stdout)")
    }
}
