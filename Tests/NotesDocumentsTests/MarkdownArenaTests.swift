import CCmark
import CMarkdownArena
import Foundation
import NotesTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `notes_markdown_parse` (cmark in a per-thread arena) against cmark's own allocator:
/// the same trees, memory given back on release, big inputs left to cmark.
@Suite struct MarkdownArenaTests {
    /// The document as cmark's XML with source positions, parsed in the arena.
    static func arenaXML(_ text: String) -> String? {
        text.withCString { pointer -> String? in
            guard let document = notes_markdown_parse(pointer, text.utf8.count, CMARK_OPT_SOURCEPOS)
            else { return nil }
            defer { notes_markdown_release(document) }
            // The rendering is carved from the arena too: copied, never freed.
            return cmark_render_xml(document, CMARK_OPT_SOURCEPOS).map { String(cString: $0) }
        }
    }

    /// The same through `cmark_parse_document` (malloc).
    static func cmarkXML(_ text: String) -> String? {
        text.withCString { pointer -> String? in
            guard let document = cmark_parse_document(pointer, text.utf8.count, CMARK_OPT_SOURCEPOS)
            else { return nil }
            defer { cmark_node_free(document) }
            guard let xml = cmark_render_xml(document, CMARK_OPT_SOURCEPOS) else { return nil }
            defer { free(xml) }
            return String(cString: xml)
        }
    }

    /// Inputs that make cmark grow buffers, nest deeply, resolve references and take
    /// several arena chunks.
    static let awkward: [String] = [
        "",
        "plain",
        String(repeating: "> ", count: 300) + "deep quote\n",
        String(repeating: "- ", count: 200) + "deep list\n",
        (0..<3_000).map { "[r\($0)]: https://example.com/\($0) \"t\($0)\"\n" }.joined()
            + (0..<3_000).map { "[x][r\($0)] " }.joined(),
        "```\n"
            + String(
                repeating: "let x = 1 // a long fenced block that grows one buffer\n", count: 6_000)
            + "```\n",
        String(repeating: "*a **b `c` [d](e) <span>f</span> g* ", count: 8_000),
        (0..<2_000).map {
            "# Heading \($0)\n\nText with `code\nspan` and [[wiki]] #tag\n\n| a | b |\n|---|---|\n"
        }.joined(),
        String(repeating: "word ", count: 100_000),  // ~500 KB: just inside the limit
        String(repeating: "\u{1F40B} whale\n", count: 60_000),  // ~660 KB: parsed by cmark itself
    ]

    @Test func treesMatchCmarksOwnAllocator() throws {
        var texts = Self.awkward
        // Real notes committed in Tests/Fixtures; the full corpora too when NOTES_CORPORA names them.
        var folders = [Repository.fixtures + "/dendron", Repository.fixtures + "/tldr"]
        if let corpora = Repository.largeCorpora {
            folders += [corpora + "/dendron-vault", corpora + "/tldr-pages/pages/common"]
        } else {
            print(
                "MarkdownArenaTests: NOTES_CORPORA is not set: compared on the 218 fixture notes only, not the full Dendron and tldr corpora"
            )
        }
        for root in folders {
            let names = (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []
            for name in names.sorted() where name.hasSuffix(".md") {
                if let text = try? String(contentsOfFile: root + "/" + name, encoding: .utf8) {
                    texts.append(text)
                }
            }
        }
        #expect(
            texts.count >= Self.awkward.count + 200,
            "the fixtures under Tests/Fixtures were not found")
        if Repository.largeCorpora != nil {
            #expect(texts.count > 1_000, "NOTES_CORPORA has no dendron-vault/ and tldr-pages/")
        }
        for text in texts {
            let arena = Self.arenaXML(text)
            #expect(arena != nil)
            #expect(arena == Self.cmarkXML(text), "differs for: \(text.prefix(80))")
        }
    }

    @Test func releaseKeepsOnlyTheFirstChunk() {
        _ = Self.arenaXML("warm up")
        let kept = notes_markdown_arena_reserved()
        #expect(kept == 64 * 1024)
        // A document of ~400 KB takes several chunks while it lives; all but the first go.
        let big = (0..<12_000).map { "- item \($0) with *emphasis*\n" }.joined()
        #expect(big.utf8.count < 512 * 1024)
        var peak = 0
        big.withCString { pointer in
            let document = notes_markdown_parse(pointer, big.utf8.count, CMARK_OPT_DEFAULT)
            peak = notes_markdown_arena_reserved()
            notes_markdown_release(document)
        }
        #expect(peak > 4 * kept)
        #expect(notes_markdown_arena_reserved() == kept)
    }

    @Test func aSecondDocumentBeforeReleaseUsesCmarksAllocator() {
        _ = Self.arenaXML("warm up")
        let first = "# One\n\ntext"
        let second = "# Two\n\n- a\n- b"
        first.withCString { pa in
            second.withCString { pb in
                let one = notes_markdown_parse(pa, first.utf8.count, CMARK_OPT_DEFAULT)
                let before = notes_markdown_arena_reserved()
                let two = notes_markdown_parse(pb, second.utf8.count, CMARK_OPT_DEFAULT)
                // Nothing of the second came from the arena.
                #expect(notes_markdown_arena_reserved() == before)
                #expect(
                    String(
                        cString: cmark_node_get_literal(
                            cmark_node_first_child(cmark_node_first_child(two)))) == "Two")
                notes_markdown_release(two)  // cmark_node_free
                #expect(
                    String(
                        cString: cmark_node_get_literal(
                            cmark_node_first_child(cmark_node_first_child(one)))) == "One")
                notes_markdown_release(one)
            }
        }
        #expect(notes_markdown_arena_reserved() == 64 * 1024)
    }

    @Test func manyThreadsEachTheirOwnArena() async {
        let texts = Self.awkward.prefix(8)
        let expected = texts.map { Self.cmarkXML($0) }
        await withTaskGroup(of: Bool.self) { group in
            for round in 0..<16 {
                group.addTask {
                    let i = round % texts.count
                    return Self.arenaXML(texts[texts.startIndex + i]) == expected[i]
                }
            }
            for await same in group { #expect(same) }
        }
    }
}
