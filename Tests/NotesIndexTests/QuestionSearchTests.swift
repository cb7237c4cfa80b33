import Foundation
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// Whole questions and plain words (docs/search.md, "Plain words"), snippets that show the
/// match whatever the line's length, and scores that mean something.
@Suite struct QuestionSearchTests {
    static let files: [String: String] = [
        "history/whaling.md": """
        # American whaling

        Whaling ships sailed from New Bedford for years at a time.

        ## Decline

        After 1859 petroleum replaced whale oil, and the whaling industry declined fast.
        """,
        "history/petroleum.md": "# Petroleum\n\nKerosene from petroleum lit the lamps by 1870.\n",
        "books/moby.md":
            "# Moby Dick\n\nA whaling voyage told by Ishmael.\n\n## The ship\n\nThe Pequod is a whaling ship.\n",
        "notes/industry.md": "# Industry\n\nThe textile industry grew in Lowell.\n",
        "titles/harpoon-guide.md":
            "# Harpoon guide\n\n## Part one\n\nIron and rope.\n\n## Part two\n\nHow to throw a harpoon from the bow.\n\n## Part three\n\nNothing here.\n",
    ]

    let fixture = IndexFixture(files: QuestionSearchTests.files)

    @Test func aWholeQuestionFindsTheSectionHoldingMostOfItsWords() throws {
        let results = try fixture.search("how did the whaling industry decline")
        #expect(results.hits.first?.path == "history/whaling.md")
        #expect(results.hits.first?.snippets.first?.section == "Decline")
        #expect(results.words == ["whaling", "industry", "decline"])
        #expect(results.matching == .mostWords)
        #expect(results.hits.first?.missing == nil)
        // The rest hold some of the words, and say which they lack.
        let moby = try #require(results.hits.first { $0.path == "books/moby.md" })
        #expect(moby.missing == ["industry", "decline"])
        #expect(
            Set(results.hits.map(\.path)) == [
                "history/whaling.md", "books/moby.md", "notes/industry.md",
            ])
        // A question mark is not part of the word the answer names.
        let asked = try fixture.search("how did the whaling industry decline?")
        #expect(asked.words == ["whaling", "industry", "decline"])
        #expect(
            try #require(asked.hits.first { $0.path == "books/moby.md" }).missing == [
                "industry", "decline",
            ])
        // No hits: nothing to say about how they matched.
        #expect(try fixture.search("quantum chromodynamics lattice").matching == nil)
    }

    @Test func wordsAllFoundSayAllWords() throws {
        let results = try fixture.search("whaling decline")
        #expect(
            results.hits.map(\.path) == ["history/whaling.md"]
                || results.hits.first?.path == "history/whaling.md")
        let some = try fixture.search("petroleum kerosene")
        #expect(some.hits.map(\.path) == ["history/petroleum.md", "history/whaling.md"])
        #expect(some.hits.map(\.missing) == [nil, ["kerosene"]])
        #expect(some.matching == .mostWords)
        let all = try fixture.search("textile Lowell")
        #expect(all.hits.map(\.path) == ["notes/industry.md"])
        #expect(all.matching == .allWords)
        // Said of every file the answer counts, not only of the hits shown: a page of one
        // that holds every word does not make the rest hold them.
        let first = try fixture.search("petroleum kerosene") { $0.limit = 1 }
        #expect(first.hits.map(\.path) == ["history/petroleum.md"] && first.total == 2)
        #expect(first.hits.first?.missing == nil)
        #expect(first.matching == .mostWords)
    }

    /// From a trial: `made of?` kept "of" as a word of its own (with its mark), so every
    /// hit was "missing: of".
    @Test func aQuestionsMarksAreNotPartOfItsWords() throws {
        let parsed = try SearchQuery(
            parsing: "what's Ahab's leg made of? (whaling, decline.)", isMetadataKey: { _ in false }
        )
        #expect(
            parsed.significantTerms.map(\.text) == ["Ahab", "leg", "made", "whaling", "decline"])
        let results = try fixture.search("how did the whaling industry decline?")
        #expect(results.hits.first?.path == "history/whaling.md")
        #expect(results.hits.first?.missing == nil, "\(results.hits.map(\.missing))")
    }

    @Test func operatorsKeepTheirExactMeaning() throws {
        #expect(
            try fixture.search("whaling AND decline").hits.map(\.path) == ["history/whaling.md"])
        #expect(try fixture.search("whaling AND decline").matching == nil)
        #expect(
            try fixture.search("\"whaling industry\"").hits.map(\.path) == ["history/whaling.md"])
        #expect(
            try !fixture.search("whaling -decline").hits.map(\.path).contains("history/whaling.md"))
        // A single word is exact too.
        #expect(try fixture.search("kerosene").hits.map(\.path) == ["history/petroleum.md"])
    }

    @Test func commonWordsAloneStillSearch() throws {
        let results = try fixture.search("the from")
        #expect(!results.hits.isEmpty)
        #expect(results.words == ["the", "from"])
    }

    @Test func scoresAreRelativeToTheBestHit() throws {
        let results = try fixture.search("whaling")
        let scores = results.hits.compactMap(\.score)
        #expect(scores.count == results.hits.count && scores.count >= 2)
        #expect(scores.first == 1 && scores.allSatisfy { $0 > 0 && $0 <= 1 })
        #expect(scores == scores.sorted(by: >))
        // Documents listed by filter alone have no score.
        #expect(try fixture.search("in:history").hits.allSatisfy { $0.score == nil })
    }

    @Test func aTitleMatchShowsTheLinesThatMatch() throws {
        let results = try fixture.search("harpoon")
        let hit = try #require(results.hits.first { $0.path == "titles/harpoon-guide.md" })
        #expect(hit.snippets.map(\.text).contains("How to throw a harpoon from the bow."))
        #expect(hit.snippets.allSatisfy { !$0.spans.isEmpty })
        // Only the title matches: one line, not every section.
        let titleOnly = try #require(fixture.search("guide").hits.first)
        #expect(titleOnly.snippets.count == 1)
    }

    /// A snippet costs time linear in its line: a multi-megabyte one-line file answers with
    /// a window around the first match.
    @Test func aHugeOneLineFileGivesAWindowedSnippet() throws {
        var line = ""
        line.reserveCapacity(6_000_000)
        let words = ["alpha", "beta", "gamma", "delta", "sea", "ship"]
        for i in 0..<800_000 { line += words[i % words.count] + (i % 7 == 3 ? " narwhal " : " ") }
        fixture.write("big/line.md", line)
        let results = try fixture.search("narwhal")
        let hit = try #require(results.hits.first { $0.path == "big/line.md" })
        let snippet = try #require(hit.snippets.first)
        #expect(snippet.line == 1)
        #expect(snippet.text.unicodeScalars.count <= SnippetBuilder.maxLength + 2)
        #expect(snippet.text.hasSuffix("…"))
        let scalars = Array(snippet.text.unicodeScalars)
        #expect(!snippet.spans.isEmpty)
        for span in snippet.spans {
            #expect(String(String.UnicodeScalarView(scalars[span[0]..<span[1]])) == "narwhal")
        }
    }

    @Test func carriageReturnLineEndingsGiveTheRightLine() throws {
        fixture.write("cr/old-mac.txt", "first line\rsecond line\rthe narwhal line\rlast\r")
        let hit = try #require(fixture.search("narwhal").hits.first { $0.path == "cr/old-mac.txt" })
        #expect(hit.snippets.first?.text == "the narwhal line")
    }
}
