import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// context.md, the journal and templates from the command line (docs/spec.md §8).
@Suite(.serialized) struct KnowledgeCommandTests {
    func text(_ notes: NotesRunner, _ path: String) -> String {
        (try? String(contentsOfFile: notes.workspace + "/" + path, encoding: .utf8)) ?? ""
    }

    @Test func journalAppendsFromTwoProcessesAtOnceLoseNothing() throws {
        let notes = NotesRunner(copySample: false)
        #expect(notes("init", notes.workspace, in: notes.dir.path).status == 0)
        // Two writers, 25 entries each, started together (as the person and an agent would).
        let script = """
            for i in $(seq 1 25); do "$1" journal "entry $2-$i" >/dev/null || exit 1; done
            """
        let env = notes.environment
        let a = Process()
        let b = Process()
        for (process, name) in [(a, "a"), (b, "b")] {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", script, "sh", Repository.notesBinary, name]
            process.currentDirectoryURL = URL(fileURLWithPath: notes.workspace)
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        }
        try a.run()
        try b.run()
        a.waitUntilExit()
        b.waitUntilExit()
        #expect(a.terminationStatus == 0 && b.terminationStatus == 0)
        let journal = try #require(
            try FileManager.default.contentsOfDirectory(atPath: notes.workspace + "/Journal").first
            { $0.hasSuffix(".md") })
        let page = text(notes, "Journal/" + journal)
        for writer in ["a", "b"] {
            for i in 1...25 {
                #expect(page.contains("\nentry \(writer)-\(i)\n"), "entry \(writer)-\(i) lost")
            }
        }
        #expect(page.components(separatedBy: "\n# ").count == 2, "one page header")
        #expect(page.components(separatedBy: "— user\n").count == 51)
        #expect(page.contains("tags: [journal]"))
        // Every entry is in history.
        let log = text(notes, ".notes/history/log.jsonl").split(separator: "\n").filter {
            $0.contains(journal)
        }
        #expect(log.count == 50)
    }

    @Test func journalTakesStdinAndRefusesEmptyEntries() {
        let notes = NotesRunner()
        let piped = notes("journal", stdin: "Read chapter 42.\nThe whiteness passage.\n")
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(notes("journal", stdin: "  \n").status == 2)
        let today = Timestamp.localDate(Timestamp.now())
        let page = text(notes, "Journal/\(today).md")
        #expect(page.contains("— user\n\nRead chapter 42.\nThe whiteness passage.\n"))
    }

    @Test func rememberAndContext() throws {
        let notes = NotesRunner()
        let first = notes("remember", "Marks essays on Sundays.")
        #expect(
            first.status == 0 && first.stdout.contains("remembered under \"Learned\""),
            "\(first.stderr)")
        let again = notes("remember", "marks essays on sundays")
        #expect(again.stdout.contains("already in context.md"))
        // The person may file facts in their own section.
        #expect(notes("remember", "Teaches drama too", "--section", "About me").status == 0)
        let context = text(notes, "context.md")
        #expect(context.components(separatedBy: "Marks essays on Sundays").count == 2)
        #expect(context.contains("Teaches drama too\n\n## Learned"))
        let shown = try notes.json("context", "--json")
        #expect((shown["size"] as? Int ?? 0) > 0 && shown["max_bytes"] as? Int == 16384)
        #expect(shown["user_sections"] as? [String] == ["About me"])
        let human = notes("context")
        #expect(
            human.stdout.contains("## About me") && human.stderr.contains("of the 16 KB budget"))
    }

    @Test func newCreatesFromTemplatesAndNeverClobbers() throws {
        let notes = NotesRunner()
        let made = try notes.json(
            "new", "research", "Typee", "--var", "question=Is it true?", "--json")
        let files = (made["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        #expect(files == ["Research/typee/introduction.md", "Research/typee/notes.md"])
        #expect(made["folders"] as? [String] == ["Research/typee/sources"])
        let intro = text(notes, "Research/typee/introduction.md")
        #expect(
            intro.contains("The question: Is it true?") && intro.contains("created_by: user")
                && !intro.contains("{{"))
        #expect(notes("search", "Typee", "-l").stdout.contains("Research/typee/introduction.md"))
        // Again: refused, nothing changed.
        let before = intro
        let again = notes("new", "research", "Typee")
        #expect(again.status == 2 && again.stderr.contains("already exists"))
        #expect(text(notes, "Research/typee/introduction.md") == before)
        // A source into a topic's sources/ folder; unknown and malformed variables are errors.
        #expect(
            notes(
                "new", "source", "Hawthorne's letter", "--var", "author=Melville", "--to",
                "Research/typee/sources/"
            ).status == 0)
        #expect(text(notes, "Research/typee/sources/hawthornes-letter.md").contains("By Melville."))
        #expect(
            notes("new", "source", "X", "--var", "colour=red").stderr.contains(
                "no variable 'colour'"))
        #expect(notes("new", "source", "X", "--var", "nonsense").status == 2)
        #expect(notes("new", "poem", "X").stderr.contains("no template 'poem'"))
        let listed = try notes.json("templates", "--json")
        let names = (listed["templates"] as? [[String: Any]] ?? []).compactMap {
            $0["name"] as? String
        }
        #expect(names == ["research", "introduction", "source", "journal", "context"])
    }

    @Test func aWorkspaceOverridesAndAddsTemplates() throws {
        let notes = NotesRunner()
        try FileManager.default.createDirectory(
            atPath: notes.workspace + "/.notes/templates", withIntermediateDirectories: true)
        try "# {{title}} (our house style)\n".write(
            toFile: notes.workspace + "/.notes/templates/introduction.md", atomically: true,
            encoding: .utf8)
        try
            "meeting:\n  description: Meeting notes\n  source: meeting.md\n  target: Meetings/{{date}}-{{slug}}.md\n  variables:\n    attendees: {description: Who came}\n"
            .write(
                toFile: notes.workspace + "/.notes/templates/templates.yml", atomically: true,
                encoding: .utf8)
        try "# {{title}}\n\nAttendees: {{attendees}}\n".write(
            toFile: notes.workspace + "/.notes/templates/meeting.md", atomically: true,
            encoding: .utf8)
        #expect(notes("new", "introduction", "Omoo").status == 0)
        #expect(text(notes, "Research/omoo/introduction.md").contains("# Omoo (our house style)"))
        #expect(notes("new", "meeting", "Kickoff").stderr.contains("needs attendees"))
        #expect(notes("new", "meeting", "Kickoff", "--var", "attendees=Ann, Bo").status == 0)
        let today = Timestamp.localDate(Timestamp.now())
        #expect(text(notes, "Meetings/\(today)-kickoff.md").contains("Attendees: Ann, Bo"))
    }
}
