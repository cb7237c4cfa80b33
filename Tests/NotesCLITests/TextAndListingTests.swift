import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// Free text is taken as typed (issue 31, item 5): a leading "-" or a "-word" in the text of
/// `append`, `journal` and `remember` is text, not flags; `-word` means "exclude" only in search.
@Suite(.serialized) struct FreeTextTests {
    func text(_ notes: NotesRunner, _ path: String) -> String {
        (try? String(contentsOfFile: notes.workspace + "/" + path, encoding: .utf8)) ?? ""
    }

    func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = .current
        return formatter.string(from: Date())
    }

    @Test func appendTakesALeadingDashAsText() {
        let notes = NotesRunner()
        let result = notes("append", "Journal/2026-11-21.md", "- read chapter 32")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("USAGE"))
        #expect(text(notes, "Journal/2026-11-21.md").contains("- read chapter 32\n"))
    }

    @Test func appendWithASectionAfterTheTextAsItsHelpShows() {
        let notes = NotesRunner()
        let result = notes(
            "append", "context.md", "- prefers primary sources", "--section", "Learned")
        #expect(result.status == 0, "\(result.stderr)")
        let context = text(notes, "context.md")
        let learned = context.range(of: "## Learned")
        let fact = context.range(of: "- prefers primary sources")
        #expect(learned != nil && fact != nil)
        if let learned, let fact { #expect(learned.upperBound <= fact.lowerBound) }
        // A section name that starts with "-" is a value too.
        #expect(notes("append", "context.md", "odd", "--section", "-odd heading").status == 0)
        #expect(text(notes, "context.md").contains("-odd heading"))
    }

    @Test func journalKeepsDashesAndTheWordSearch() {
        let notes = NotesRunner(copySample: false)
        #expect(notes("init", notes.workspace, in: notes.dir.path).status == 0)
        let dash = notes("journal", "- read chapter 32")
        #expect(dash.status == 0, "\(dash.stderr)")
        let words = notes("journal", "I", "will", "search", "-later")
        #expect(words.status == 0, "\(words.stderr)")
        let page = text(notes, "Journal/\(today()).md")
        #expect(page.contains("- read chapter 32"))
        #expect(page.contains("I will search -later"), "\(page)")
        #expect(!page.contains("NOT later"))
    }

    @Test func rememberTakesALeadingDashAsText() {
        let notes = NotesRunner()
        let result = notes("remember", "-v means verbose in rsync", "--section", "Learned")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(text(notes, "context.md").contains("-v means verbose in rsync"))
    }

    @Test func aMistypedLongOptionIsStillAnErrorAndWritesNothing() {
        let notes = NotesRunner()
        let before = text(notes, "context.md")
        let result = notes("append", "context.md", "a fact", "--sectoin", "Learned")
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix("notes: unknown option '--sectoin'")
                && result.stderr.contains("put the text after `--`: `notes append -- …`")
                && result.stderr.lines().filter { !$0.isEmpty }.count == 1, "\(result.stderr)")
        #expect(text(notes, "context.md") == before)
    }

    @Test func searchStillExcludesDashedWords() {
        let notes = NotesRunner()
        let all = notes("search", "whale", "-l").stdout.lines().filter { !$0.isEmpty }
        let without = notes("search", "whale", "-ship", "-l").stdout.lines().filter { !$0.isEmpty }
        #expect(!without.isEmpty && without.count < all.count)
    }
}

/// Listing flags (issue 31, item 7): -l lists every match, --limit 0 is no limit, the
/// "more match" note goes to stderr, and output formats cannot be combined.
@Suite(.serialized) struct ListingFlagTests {
    let notes = NotesRunner()

    init() throws {
        for i in 0..<30 {
            try "# Note \(i)\n\nzebrafish number \(i)\n".write(
                toFile: notes.workspace + "/Research/zebra-\(i).md", atomically: true,
                encoding: .utf8)
        }
    }

    func lines(_ text: String) -> [String] { text.lines().map(String.init).filter { !$0.isEmpty } }

    @Test func pathsListEveryMatch() {
        let result = notes("search", "zebrafish", "-l")
        #expect(result.status == 0)
        #expect(lines(result.stdout).count == 30)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func limitZeroIsNoLimit() {
        let human = notes("search", "zebrafish", "--limit", "0")
        #expect(human.status == 0, "\(human.stderr)")
        #expect(lines(human.stdout).filter { $0.hasPrefix("Research/zebra-") }.count == 30)
        let json = notes("search", "zebrafish", "--limit", "0", "--json")
        #expect(json.stdout.components(separatedBy: "\"path\"").count - 1 == 30)
    }

    @Test func theMoreNoteGoesToStandardError() {
        let human = notes("search", "zebrafish")
        #expect(lines(human.stdout).filter { $0.hasPrefix("Research/zebra-") }.count == 20)
        #expect(!human.stdout.contains("more file(s)"))
        #expect(human.stderr.contains("10 more file(s) match"), "\(human.stderr)")
        let cut = notes("search", "zebrafish", "-l", "--limit", "5")
        #expect(
            lines(cut.stdout).count == 5
                && cut.stdout.lines().allSatisfy { $0.isEmpty || $0.hasSuffix(".md") })
        #expect(cut.stderr.contains("25 more file(s) match"))
    }

    @Test func conflictingOutputFlagsAreAnError() {
        for flags in [
            ["-l", "--json"], ["-l", "--jsonl"], ["--json", "--jsonl"],
            ["--format", "{{path}}", "-l"], ["--format", "{{path}}", "--json"],
        ] {
            let result = run(
                Repository.notesBinary, ["search", "zebrafish"] + flags,
                environment: notes.environment, directory: notes.workspace)
            #expect(result.status == 2, "\(flags)")
            let output = lines(result.stdout) + lines(result.stderr)
            #expect(
                output.count == 1 && output[0].contains("cannot be combined"), "\(flags): \(output)"
            )
        }
        let negative = notes("search", "zebrafish", "--limit", "-1")
        #expect(negative.status == 2 && negative.stderr.hasPrefix("notes: "))
    }
}

/// Bad input is an error (issue 31, item 10): one line, exit 2, nothing changed; and --json
/// on diff and log.
@Suite(.serialized) struct BadInputAndJSONTests {
    let notes = NotesRunner()

    func oneErrorLine(_ result: ProcessResult) -> Bool {
        result.status == 2 && result.stderr.hasPrefix("notes: ")
            && result.stderr.lines().filter { !$0.isEmpty }.count == 1
    }

    @Test func anUnknownHelpTopicIsAnError() {
        let bogus = notes("help", "bogus")
        #expect(oneErrorLine(bogus), "\(bogus.status) \(bogus.stderr)")
        #expect(bogus.stdout.isEmpty)
        #expect(notes("help", "search").status == 0)
    }

    @Test func historyOfAFileThatNeverExistedIsAnError() {
        let missing = notes("history", "nonexistent.md")
        #expect(oneErrorLine(missing), "\(missing.status) \(missing.stderr)")
        // An existing file without recorded changes is not an error.
        #expect(notes("history", "Research/moby-dick/notes.md").status == 0)
    }

    @Test func searchingAFolderThatDoesNotExistIsAnError() {
        let flag = notes("search", "whale", "--in", "Nonexistent")
        #expect(oneErrorLine(flag), "\(flag.status) \(flag.stderr)")
        let inline = notes("search", "whale in:Nonexistent")
        #expect(oneErrorLine(inline), "\(inline.status) \(inline.stderr)")
        #expect(notes("search", "whale", "--in", "Research/moby-dick").status == 0)
    }

    @Test func diffAndLogPrintJSON() throws {
        #expect(notes("write", "ideas.md", stdin: "first\n").status == 0)
        #expect(notes("append", "ideas.md", "second").status == 0)
        let diff = try notes.json("diff", "ideas.md", "--json")
        #expect(diff["path"] as? String == "ideas.md")
        #expect((diff["diff"] as? String)?.contains("+second") == true, "\(diff)")
        #expect(diff["from"] is String && diff["to"] is String)
        let log = try notes.json("log", "--json")
        let changes = try #require(log["changes"] as? [[String: Any]])
        #expect(changes.count == 2 && changes.first?["op"] as? String == "append", "\(changes)")
        let both = notes("log", "--json", "--jsonl")
        #expect(both.status == 2)
    }
}
