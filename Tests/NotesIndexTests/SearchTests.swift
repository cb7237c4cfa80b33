import Foundation
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

@Suite struct SearchTests {
    static let files: [String: String] = [
        "Research/moby/introduction.md": """
        ---
        title: Moby introduction
        tags: [whales, books/classics]
        created_by: agent
        created_at: 2026-01-10T10:00:00Z
        last_modified_by: user
        last_modified_at: 2026-11-20T10:00:00Z
        status: draft
        ---

        # Moby introduction

        Ishmael goes to sea.

        ## The white whale

        Ahab hunts the white whale across every ocean.
        """,
        "Research/moby/notes.md":
            "# Notes\n\nThe whaling chapters are long.\nA café in Nantucket.\n",
        "Journal/2026-11-20.md":
            "---\ncreated_by: user\ncreated_at: 2026-11-20\n---\n# Day\n\nRead about whales today. #reading\n",
        "context.md": "# Context\n\nLikes whales and foo-bar words and current.md files.\n",
        "Research/zh/note.md": "# 笔记\n\n对照阅读时，可以让代理在后台执行检索。\n",
    ]

    let fixture = IndexFixture(files: SearchTests.files)

    @Test func oneHitPerFileRankedWithSnippetsPointingAtTheLine() throws {
        let results = try fixture.search("whale")
        #expect(
            Set(results.hits.map(\.path)) == [
                "Research/moby/introduction.md", "Research/moby/notes.md", "Journal/2026-11-20.md",
                "context.md",
            ])
        #expect(results.total == 4)
        let intro = try #require(results.hits.first { $0.path == "Research/moby/introduction.md" })
        let snippet = try #require(intro.snippets.first { $0.section == "The white whale" })
        #expect(snippet.line == 17)
        #expect(snippet.text == "Ahab hunts the white whale across every ocean.")
        #expect(snippet.spans == [[21, 26]])
        #expect(intro.provenance.createdBy == .agent && intro.provenance.lastModifiedBy == .user)
        #expect(intro.version.count == 16)
        let scores = results.hits.compactMap(\.score)
        #expect(scores.count == results.hits.count && scores.first == 1)
        #expect(scores == scores.sorted(by: >) && scores.allSatisfy { $0 > 0 && $0 <= 1 })
    }

    /// The MCP server's index reads through a memory map; it must answer exactly as a
    /// command's does, snippets included.
    @Test func aLongLivedIndexReadsThroughAMapAndAnswersTheSame() throws {
        let index = try fixture.refreshed()
        let mapped = try NoteIndex(
            workspace: index.workspace, directory: fixture.dir.path + "/index", longLived: true)
        #expect(try mapped.mapSizeInForce() == NoteIndex.mapSize)
        #expect(try index.mapSizeInForce() == 0)
        for text in [
            "whale", "white whale", "\"white whale\"", "whal*", "whale -ahab", "tag:whales", "后台执行",
        ] {
            let a = try fixture.search(text, index)
            let b = try fixture.search(text, mapped)
            #expect(a.total == b.total && a.total > 0, "\(text)")
            #expect(a.hits.map(\.path) == b.hits.map(\.path), "\(text)")
            #expect(
                a.hits.map { $0.snippets.map(\.text) } == b.hits.map { $0.snippets.map(\.text) },
                "\(text)")
        }
    }

    @Test func titleMatchesOutrankBodyMatches() throws {
        let results = try fixture.search("introduction")
        #expect(results.hits.first?.path == "Research/moby/introduction.md")
    }

    @Test func phraseOrNotAndPrefix() throws {
        #expect(
            try fixture.search("\"white whale\"").hits.map(\.path) == [
                "Research/moby/introduction.md"
            ])
        #expect(
            try Set(fixture.search("Ishmael OR café").hits.map(\.path)) == [
                "Research/moby/introduction.md", "Research/moby/notes.md",
            ])
        #expect(
            try !fixture.search("whale -Ahab").hits.map(\.path).contains(
                "Research/moby/introduction.md"))
        #expect(
            try !fixture.search("whale NOT Ahab").hits.map(\.path).contains(
                "Research/moby/introduction.md"))
        #expect(try fixture.search("Nantuck*").hits.map(\.path) == ["Research/moby/notes.md"])
    }

    /// From a trial: `albatross AND cormorant` found nothing when the two words were in
    /// different sections of one note. Every term must be in the file, not in one section.
    @Test func anANDOfTermsMatchesAcrossAFilesSections() throws {
        let birds = IndexFixture(files: [
            "two.md":
                "# Seabirds\n\n## First\n\nan albatross here\n\n## Second\n\na cormorant there\n",
            "one.md": "# Albatross only\n\nan albatross and a gull\n",
            "both.md": "# Both\n\nthe albatross chased the cormorant\n",
        ])
        let index = try birds.refreshed()
        for query in [
            "albatross AND cormorant", "\"albatross here\" cormorant",
            "albatross OR pelican cormorant",
            "albatross -pelican cormorant", "title:seabirds cormorant",
        ] {
            let paths = try birds.search(query, index).hits.map(\.path)
            #expect(paths.contains("two.md") && !paths.contains("one.md"), "\(query): \(paths)")
        }
        // Both words in one section rank first; the snippet of a file shows a line that holds
        // one of them.
        let hits = try birds.search("albatross AND cormorant", index).hits
        #expect(hits.map(\.path) == ["both.md", "two.md"])
        let shown = hits[1].snippets.map(\.text).joined(separator: " ")
        #expect(shown.contains("albatross") || shown.contains("cormorant"), "\(shown)")
        #expect(
            try birds.search("albatross AND cormorant -chased", index).hits.map(\.path) == [
                "two.md"
            ])
    }

    @Test func foldsCaseAndDiacriticsAndStems() throws {
        #expect(try fixture.search("CAFE").hits.map(\.path) == ["Research/moby/notes.md"])
        #expect(try fixture.search("hunting").hits.map(\.path) == ["Research/moby/introduction.md"])
    }

    @Test func cjkTextIsFoundBySubstring() throws {
        let hit = try #require(fixture.search("后台执行").hits.first)
        #expect(hit.path == "Research/zh/note.md")
        #expect(hit.snippets.first?.text == "对照阅读时，可以让代理在后台执行检索。")
        #expect(hit.snippets.first?.spans == [[12, 16]])
        #expect(try fixture.search("代理").hits.map(\.path) == ["Research/zh/note.md"])
    }

    @Test func userTextNeverReachesFTS5AsSyntax() throws {
        let index = try fixture.refreshed()
        for text in [
            "what?", "current.md", "foo-bar", "\"unbalanced", "NEAR(", "a AND", "col:x", "^x",
            "a OR", "\u{0}whale", "\"a\"b\"", String(repeating: "x OR ", count: 5000), "--x",
            "title:", "12:30",
        ] {
            #expect(throws: Never.self, "\(text.prefix(30))") {
                _ = try fixture.search(text, index)
            }
        }
        // Text with no searchable word is an error, never a list of every document.
        for text in [
            "-", "*", "\"\"", "(((", "OR", "NOT", "***", "!!!", String(repeating: "(", count: 200),
            "'", ":",
        ] {
            let error = #expect(throws: NotesError.self, "\(text.prefix(30))") {
                _ = try fixture.search(text, index)
            }
            #expect(error?.code == .invalidArgument, "\(text.prefix(30))")
        }
        // An empty query and a filter alone still list documents.
        #expect(try fixture.search("", index).total > 0)
        #expect(try fixture.search("   ", index).total > 0)
        #expect(try fixture.search("current.md", index).hits.map(\.path) == ["context.md"])
        #expect(try fixture.search("foo-bar", index).hits.map(\.path) == ["context.md"])
    }

    @Test func everyFilterNarrowsTheResults() throws {
        let index = try fixture.refreshed()
        func paths(_ q: String) throws -> Set<String> {
            Set(try fixture.search(q, index).hits.map(\.path))
        }
        #expect(
            try paths("whale in:Research/moby") == [
                "Research/moby/introduction.md", "Research/moby/notes.md",
            ])
        #expect(try paths("whale in:Research/mo").isEmpty)  // separator-aware
        #expect(try paths("whale path:'Research/*/intro*'") == ["Research/moby/introduction.md"])
        #expect(try paths("tag:whales") == ["Research/moby/introduction.md"])
        #expect(try paths("tag:books") == ["Research/moby/introduction.md"])
        #expect(try paths("tag:reading") == ["Journal/2026-11-20.md"])
        #expect(try paths("whale by:agent") == ["Research/moby/introduction.md"])
        #expect(try paths("whale edited-by:user").contains("Research/moby/introduction.md"))
        #expect(try paths("whale kind:journal") == ["Journal/2026-11-20.md"])
        #expect(try paths("whale kind:context,journal") == ["Journal/2026-11-20.md", "context.md"])
        #expect(try paths("title:moby") == ["Research/moby/introduction.md"])
        #expect(try paths("whale created:<2026-02-01") == ["Research/moby/introduction.md"])
        #expect(try paths("whale created:2026-11-20") == ["Journal/2026-11-20.md"])
        // Ranges need no shell quoting and include both ends.
        #expect(try paths("whale created:2026-11-20..").contains("Journal/2026-11-20.md"))
        #expect(try !paths("whale created:2026-11-20..").contains("Research/moby/introduction.md"))
        #expect(
            try paths("whale created:..2026-11-20") == [
                "Research/moby/introduction.md", "Journal/2026-11-20.md",
            ])
        #expect(try paths("whale created:2026-11-20..2026-11-20") == ["Journal/2026-11-20.md"])
        #expect(
            try paths("whale created:2026-01-01..2026-11-19").allSatisfy {
                $0 != "Journal/2026-11-20.md"
            })
        #expect(try paths("whale modified:1d") == paths("whale modified:<1d"))
        #expect(try paths("whale modified:<1d").contains("Research/moby/notes.md"))
        #expect(try !paths("whale modified:<1d").contains("Research/moby/introduction.md"))
        #expect(try paths("status:draft") == ["Research/moby/introduction.md"])
        #expect(throws: NotesError.self) { try fixture.search("kind:robot", index) }
        #expect(throws: NotesError.self) { try fixture.search("by:robot", index) }
        #expect(throws: NotesError.self) { try fixture.search("created:>=soon", index) }
        #expect(throws: NotesError.self) { try fixture.search("created:..", index) }
        #expect(throws: NotesError.self) { try fixture.search("created:soon..later", index) }
    }

    @Test func aliasesAreSearchedAsTheTitleIs() throws {
        let vault = IndexFixture(
            files: [
                "people/ana.md":
                    "---\naliases: [Nan, The Taxonomist]\n---\n# Ana\n\nShe sorts whales.\n",
                "people/bo.md": "---\nalias: Bobo\n---\n# Bo\n\nHe edits.\n",
            ], filler: 2)
        let index = try vault.refreshed()
        #expect(try vault.search("taxonomist", index).hits.map(\.path) == ["people/ana.md"])
        #expect(try vault.search("title:nan", index).hits.map(\.path) == ["people/ana.md"])
        #expect(try vault.search("bobo", index).hits.map(\.path) == ["people/bo.md"])
    }

    @Test func aTagFindsTheTagsNestedUnderItBySlashOrDot() throws {
        let vault = IndexFixture(
            files: [
                "people/ana.md": "# Ana\n\nA #role.taxonomist of whales.\n",
                "people/bo.md": "# Bo\n\nAn #role/editor.\n",
                "people/cy.md": "# Cy\n\nA #roles person.\n",
            ], filler: 2)
        let index = try vault.refreshed()
        func paths(_ q: String) throws -> Set<String> {
            Set(try vault.search(q, index).hits.map(\.path))
        }
        #expect(try paths("tag:role") == ["people/ana.md", "people/bo.md"])
        #expect(try paths("tag:role.taxonomist") == ["people/ana.md"])
        #expect(try paths("tag:roles") == ["people/cy.md"])
        #expect(try paths("tag:rol").isEmpty)
    }

    @Test func emptyOrFilterOnlyQueriesListRecentDocuments() throws {
        let index = try fixture.refreshed()
        let all = try fixture.search("", index) { $0.limit = 100 }
        #expect(all.total == 25)
        #expect(all.hits.first?.path != nil)
        let journals = try fixture.search("kind:journal", index)
        #expect(journals.hits.map(\.path) == ["Journal/2026-11-20.md"])
        let withoutWhales = try fixture.search("-whale", index) { $0.limit = 100 }
        #expect(withoutWhales.total == 21)
        #expect(!withoutWhales.hits.contains { $0.path == "context.md" })
    }

    @Test func sortAndLimit() throws {
        let index = try fixture.refreshed()
        let byPath = try fixture.search("whale", index) { $0.sort = .path }
        #expect(byPath.hits.map(\.path) == byPath.hits.map(\.path).sorted())
        let limited = try fixture.search("whale", index) { $0.limit = 2 }
        #expect(limited.hits.count == 2 && limited.total == 4)
    }

    @Test func snippetsComeBestSectionFirstAndCanBeSkipped() throws {
        // Three sections mention the word: the one that also has it in its heading ranks
        // first, and the one with a single mention in a long section last.
        let filler = String(repeating: "Plain sentences about the weather and the sea. ", count: 40)
        fixture.write(
            "Research/ranked.md",
            "# Ranked\n\n## Weather\n\n\(filler)narwhal once.\n\n## Narwhal\n\nnarwhal narwhal here.\n\n## Notes\n\nnarwhal and narwhal and narwhal.\n"
        )
        let hit = try #require(fixture.search("narwhal").hits.first)
        #expect(hit.snippets.count == 3)
        #expect(hit.snippets.first?.section == "Narwhal")
        #expect(hit.snippets.last?.section == "Weather")
        let bare = try fixture.search("narwhal") { $0.withSnippets = false }
        #expect(bare.hits.map(\.path) == ["Research/ranked.md"] && bare.hits[0].snippets.isEmpty)
    }

    @Test func longBooksPointAtTheChapterAndLine() throws {
        let book = Repository.sampleWorkspace + "/Research/moby-dick/full_text.txt"
        let text = try String(contentsOfFile: book, encoding: .utf8)
        fixture.write("Research/moby/full_text.txt", text)
        let hit = try #require(fixture.search("Queequeg harpoon in:Research/moby").hits.first)
        #expect(hit.path == "Research/moby/full_text.txt")
        #expect(hit.title == "Moby Dick; or The Whale")
        let lines = text.lines()
        for snippet in hit.snippets {
            #expect(
                snippet.section.hasPrefix("CHAPTER") || snippet.section == "Contents",
                "\(snippet.section)")
            let line = String(lines[snippet.line - 1])
            #expect(
                line.lowercased().contains("queequeg") || line.lowercased().contains("harpoon"),
                "line \(snippet.line): \(line)")
        }
    }
}
