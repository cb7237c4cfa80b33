import NotesCore
import Testing

@testable import NotesDocuments

@Suite struct MarkdownDocumentTests {
    func parse(_ path: String, _ text: String) -> ParsedDocument {
        let (document, _) = DocumentParser.parse(path: path, bytes: Array(text.utf8))
        return document!
    }

    let note = """
        ---
        title: Whales
        tags: [sea]
        created_by: agent
        ---

        Intro about #cetology and `#notatag` in code.

        # Heading One

        Text with a [link](sources/a.md) and [[Target Note|alias]] and [[Plain]].

        ## Second

        ```
        code line with whale
        ```
        last line
        """

    @Test func extractsTitleTagsHeadingsAndLinksWithFileLines() {
        let doc = parse("Research/w.md", note)
        #expect(doc.title == "Whales")
        #expect(doc.tags == ["sea", "cetology"])
        #expect(doc.provenance.createdBy == .agent)
        #expect(doc.headings.map(\.text) == ["Heading One", "Second"])
        #expect(doc.headings.map(\.line) == [9, 13])
        #expect(doc.links.map(\.target).sorted() == ["Plain", "Target Note", "sources/a.md"])
        #expect(doc.links.allSatisfy { $0.line == 11 })
        #expect(doc.links.first { $0.target == "Target Note" }?.text == "alias")
    }

    @Test func sectionsFollowHeadingsAndKeepLineAlignment() {
        let doc = parse("Research/w.md", note)
        #expect(doc.sections.map(\.heading) == ["", "Heading One", "Second"])
        let lines = note.lines()
        for section in doc.sections {
            for (offset, line) in section.text.lines().enumerated() where !line.isEmpty {
                // Every extracted word sits on the file line the section says it does.
                let fileLine = lines[section.line - 1 + offset]
                #expect(
                    line.split(separator: " ").allSatisfy { fileLine.contains($0) },
                    "\(line) vs \(fileLine)")
            }
        }
        #expect(doc.sections[2].text.contains("code line with whale"))
    }

    @Test func codeSpansHideTagsAndLinksButKeepLineOffsets() {
        let doc = parse(
            "n.md", "Start `#no [[nolink]] é` and #yes\nthen [[Later]] and [a\nlink](t.md)\n")
        #expect(doc.tags == ["yes"])
        #expect(doc.links.map(\.target).sorted() == ["Later", "t.md"])
        #expect(doc.links.first { $0.target == "Later" }?.line == 2)
        // A link's text is kept on one line.
        #expect(doc.links.first { $0.target == "t.md" }?.text == "a link")
    }

    @Test func dendronDatesDateTheNoteWhenNotesOwnKeysAreAbsent() throws {
        let dendron = parse(
            "asset.preview.md",
            "---\nid: x\ntitle: Preview\nupdated: 1653409628830\ncreated: 1639113925844\n---\n# Preview\n"
        )
        #expect(dendron.provenance.createdAt == Timestamp.format(1_639_113_925.844))
        #expect(dendron.provenance.lastModifiedAt == Timestamp.format(1_653_409_628.830))
        let obsidian = parse(
            "o.md", "---\ncreated: 2024-03-01\nmodified: 2024-03-02T10:00:00Z\n---\nx\n")
        #expect(
            obsidian.provenance.createdAt == "2024-03-01"
                && obsidian.provenance.lastModifiedAt == "2024-03-02T10:00:00Z")
        let own = parse(
            "n.md",
            "---\ncreated_at: 2026-01-01T00:00:00Z\ncreated: 1639113925844\nupdated: soon\n---\nx\n"
        )
        #expect(
            own.provenance.createdAt == "2026-01-01T00:00:00Z"
                && own.provenance.lastModifiedAt == nil)
    }

    @Test func dottedAndNestedTagsAreOneTagAndAFullStopIsNot() {
        let doc = parse("n.md", "A #role.taxonomist and #area/sea met #v1.2 at #noon. Then #end.\n")
        #expect(doc.tags == ["role.taxonomist", "area/sea", "v1.2", "noon", "end"])
    }

    @Test func textAfterACodeSpanThatCrossesLinesStaysOnItsLine() {
        let text =
            "Start `#no [[nolink]]\nstill code` and #yes\nthen [[Later]] and `one\n   two\nthree` x\nlast [[End]]\n\n> quote `a\n> b` c\n> after [[Q]]\n"
        let doc = parse("n.md", text)
        #expect(doc.tags == ["yes"])
        #expect(doc.links.first { $0.target == "Later" }?.line == 3)
        #expect(doc.links.first { $0.target == "End" }?.line == 6)
        // In a blockquote the span's source holds a `>`: not matched, so the line is cmark's.
        #expect(doc.links.first { $0.target == "Q" } != nil)
        let lines = text.lines()
        for section in doc.sections {
            for (offset, line) in section.text.lines().enumerated()
            where line.contains("then") || line.contains("last") {
                #expect(
                    lines[section.line - 1 + offset].contains(line.split(separator: " ").first!),
                    "\(line)")
            }
        }
    }

    @Test func backtickRunsWithoutClosersStayLinear() {
        // Thousands of openers with no closer before real code spans: each would be scanned
        // to the paragraph's end without the search budget (quadratic).
        let runs = (2...400).map { String(repeating: "`", count: $0) + "w" }.joined(separator: " ")
        let text = "start " + runs + "\n`a\nb` then [[After]]\n"
        let doc = parse("n.md", text)
        #expect(doc.links.map(\.target) == ["After"])
    }

    @Test func codeSpanSourceNormalisesAsCmarkDoes() {
        #expect(CodeSpanSource.normalised(Array(" a ".utf8)[...]) == Array("a".utf8))
        #expect(CodeSpanSource.normalised(Array("  ".utf8)[...]) == Array("  ".utf8))
        #expect(CodeSpanSource.normalised(Array("p\r\n   q".utf8)[...]) == Array("p q".utf8))
        #expect(CodeSpanSource.normalised(Array("\nx\n".utf8)[...]) == Array("x".utf8))
    }

    @Test func wikilinkTargetsAndAliasesAreTrimmed() {
        let doc = parse(
            "n.md",
            "See [[ Moby Dick | the\u{00A0}book|2 ]], [[|nothing]], [[ Alone |  ]] and [[Ahab]].\n")
        let links = doc.links.map { "\($0.target)=\($0.text)" }
        #expect(links == ["Moby Dick=the\u{00A0}book|2", "Alone=Alone", "Ahab=Ahab"])
    }

    @Test func sectionTextJoinsLinesAsJoinedWould() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["", " ", "whale", "é", "😀", "\t", "a b", "\r"]
        for _ in 0..<2_000 {
            let lines = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    pieces.randomElement(using: &generator)!
                }.joined()
            }
            let slice = lines[...]
            #expect(SectionSplitter.joinLines(slice) == slice.joined(separator: "\n"))
        }
    }

    /// Issue 34: a file saved with old Mac line endings (CR only) has lines, headings and
    /// sections like any other (cmark saw the headings, but the body was one line).
    @Test func carriageReturnOnlyLineEndingsAreLineBreaks() {
        let doc = parse("cr.md", "# Old Mac\r\rIntro alpha.\r\r## Second\r\rbody bravo.\r")
        #expect(doc.title == "Old Mac")
        let second = doc.sections.first { $0.heading == "Second" }
        #expect(second?.line == 5)
        #expect(second?.text.contains("body bravo.") == true)
        #expect(
            doc.sections.contains { $0.text.contains("Intro alpha.") && !$0.text.contains("bravo") }
        )
        #expect(
            DocumentParser.loneCarriageReturnsAsNewlines(Array("a\r\nb\rc\r".utf8))
                == Array("a\r\nb\nc\n".utf8))
    }

    @Test func titleFallsBackToFirstH1ThenFileName() {
        #expect(parse("a/b.md", "text\n\n# The H1\n").title == "The H1")
        #expect(parse("a/b.md", "## only h2\n").title == "b")
        #expect(parse("a/b.markdown", "").title == "b")
    }

    @Test func malformedFrontMatterIsReportedAndTheBodyStillIndexed() {
        for (yaml, code) in [
            ("title: [oops\n", Diagnostic.Code.malformedFrontMatter),
            ("- a\n- b\n", .frontMatterNotMapping),
        ] {
            let (doc, diagnostics) = DocumentParser.parse(
                path: "x.md", bytes: Array("---\n\(yaml)---\nfindable body\n".utf8))
            #expect(diagnostics.map(\.code) == [code])
            #expect(doc!.sections.contains { $0.text.contains("findable body") })
            #expect(doc!.provenance == Provenance())
        }
        let (doc, diagnostics) = DocumentParser.parse(
            path: "x.md", bytes: Array("---\ntitle: x\nno closing\n".utf8))
        #expect(diagnostics.map(\.code) == [.unterminatedFrontMatter])
        #expect(doc!.sections.contains { $0.text.contains("no closing") })
    }

    @Test func badBytesNeverCrash() {
        #expect(
            DocumentParser.parse(
                path: "p.md",
                bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]
            ).document == nil)
        #expect(
            DocumentParser.parse(path: "u.md", bytes: [0xFF, 0xFE, 0x41, 0x00]).diagnostics.map(
                \.code) == [.unsupportedEncoding])
        let (invalid, diagnostics) = DocumentParser.parse(
            path: "i.md", bytes: Array("ok line\nbad \u{FF}".utf8) + [0xC3, 0x28, 0x0A])
        #expect(invalid != nil)
        #expect(diagnostics.first?.code == .invalidUTF8)
        #expect(
            DocumentParser.parse(path: "empty.md", bytes: []).document?.sections.isEmpty == true)
        let bom = DocumentParser.parse(
            path: "b.md",
            bytes: [0xEF, 0xBB, 0xBF] + Array("---\r\ntitle: BOM\r\n---\r\n# H\r\ntext\r\n".utf8))
        #expect(bom.document?.title == "BOM")
        #expect(bom.document?.headings.first?.line == 4)
    }

    @Test func pathologicalMarkdownIsHandled() {
        let cases = [
            String(repeating: "> ", count: 20_000) + "deep quote",
            String(repeating: "*a **b ", count: 20_000),
            String(repeating: "[", count: 50_000) + "x" + String(repeating: "]", count: 50_000),
            String(repeating: "- ", count: 1_000) + "nested list",
            String(repeating: "`", count: 10_000) + "x",
            String(repeating: "[a](", count: 20_000),
        ]
        for text in cases {
            let (doc, _) = DocumentParser.parse(path: "p.md", bytes: Array(text.utf8))
            #expect(doc != nil)
        }
    }

    @Test func longSectionsAreSplitIntoKilobyteChunks() {
        let paragraph = String(repeating: "word ", count: 200) + "\n\n"
        let doc = parse("big.md", "# Big\n\n" + String(repeating: paragraph, count: 100))
        #expect(doc.sections.count > 10)
        #expect(
            doc.sections.allSatisfy {
                $0.heading == "Big" && $0.text.utf8.count <= 16 * 1024 + 2048
            })
    }
}

@Suite struct TextAndChatDocumentTests {
    @Test func plainTextIsCutAtChapterLinesWithTheirTitles() {
        var text =
            "Title: A Book\r\n\r\nCONTENTS\r\n\r\nCHAPTER 1. One\r\n\r\nCHAPTER 2. Two\r\n\r\nCHAPTER 3. Three\r\n\r\n"
        text +=
            "CHAPTER 1. One\r\n\r\nIt was a dark night.\r\nThe whale rose.\r\nMore text here.\r\n\r\n"
        text += "CHAPTER 2. Two\r\n\r\nMorning came.\r\n"
        let (doc, _) = DocumentParser.parse(
            path: "Research/x/full_text.txt", bytes: Array(text.utf8))
        #expect(doc?.title == "A Book")
        let sections = doc!.sections
        #expect(sections.map(\.heading).contains("Contents"))
        let one = sections.first { $0.heading == "CHAPTER 1. One" && $0.text.contains("whale") }
        #expect(one != nil)
        let lines = text.lines()
        let whaleOffset = one!.text.lines().firstIndex { $0.contains("whale") }!
        #expect(lines[one!.line - 1 + whaleOffset] == "The whale rose.")
        #expect(sections.last?.heading == "CHAPTER 2. Two")
    }

    @Test func chapterWordsInsideProseDoNotStartSections() {
        let text =
            "Intro.\n\nBook I. (Folio), Chapter II. (Right Whale).—In one respect this is\nthe most venerable.\n"
        let (doc, _) = DocumentParser.parse(path: "a.txt", bytes: Array(text.utf8))
        #expect(doc!.sections.allSatisfy { $0.heading.isEmpty })
    }

    @Test func chatsBecomeOneSectionPerMessage() {
        let json = """
            {
              "title": "Drafting",
              "messages": [
                {"role": "user", "content": "Draft an introduction"},
                {"role": "assistant", "content": [{"type": "text", "text": "Searching for whale"},
                                                  {"type": "tool_use", "name": "search", "input": {"query": "whale"}}]}
              ]
            }
            """
        let (doc, _) = DocumentParser.parse(path: "Chats/c.json", bytes: Array(json.utf8))
        #expect(doc?.title == "Drafting")
        #expect(doc!.sections.map(\.heading) == ["user #1", "assistant #2"])
        #expect(doc!.sections.map(\.line) == [4, 5])
        #expect(doc!.sections[1].text.contains("search {\"query\":\"whale\"}"))
        let broken = DocumentParser.parse(path: "Chats/b.json", bytes: Array("{not json".utf8))
        #expect(broken.diagnostics.map(\.code) == [.malformedChat])
        #expect(DocumentParser.parse(path: "Other/c.json", bytes: Array("{}".utf8)).document == nil)
    }
}
