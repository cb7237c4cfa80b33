import Foundation
import NotesCore
import NotesStore
import Testing

/// `remember`'s near-duplicate check (issue 32 item 9) against the labelled pairs in
/// Tests/Fixtures/remember/near-duplicates.tsv.
@Suite struct RememberDuplicateTests {
    static let pairs: [(same: Bool, existing: String, new: String)] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Fixtures/remember/near-duplicates.tsv")
        let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(
                String.init)
            return fields.count == 3 ? (fields[0] == "1", fields[1], fields[2]) : nil
        }
    }()

    /// Precision and recall of "similarity ≥ threshold" on the labelled pairs.
    static func measure(_ threshold: Double) -> (
        precision: Double, recall: Double, falseDuplicates: Int
    ) {
        let scored = pairs.map { ($0.same, ContextFacts.similarity($0.existing, $0.new)) }
        let truePositives = scored.filter { $0.0 && $0.1 >= threshold }.count
        let falsePositives = scored.filter { !$0.0 && $0.1 >= threshold }.count
        let positives = scored.filter(\.0).count
        return (
            truePositives + falsePositives == 0
                ? 1 : Double(truePositives) / Double(truePositives + falsePositives),
            Double(truePositives) / Double(positives), falsePositives
        )
    }

    @Test func theThresholdIsTheLowestWithNoFalseDuplicate() {
        #expect(Self.pairs.count >= 30 && Self.pairs.filter(\.same).count >= 15)
        var table = "| similarity ≥ | precision | recall | false duplicates |\n|---|---|---|---|\n"
        for threshold in stride(from: 0.5, through: 1.0, by: 0.05) {
            let m = Self.measure(threshold)
            table += String(
                format: "| %.2f | %.2f | %.2f | %d |\n", threshold, m.precision, m.recall,
                m.falseDuplicates)
        }
        print(table)  // the table in docs/decisions.md
        let chosen = Self.measure(ContextFacts.nearDuplicateThreshold)
        #expect(chosen.falseDuplicates == 0)
        #expect(chosen.recall >= 0.25)
        #expect(Self.measure(ContextFacts.nearDuplicateThreshold - 0.05).falseDuplicates > 0)
    }

    @Test func negationsAndNumbersMakeADifferentFact() {
        #expect(
            ContextFacts.similarity(
                "Likes coffee in the morning", "Doesn't like coffee in the morning") == 0)
        #expect(
            ContextFacts.similarity(
                "Wants summaries under 200 words", "Wants summaries under 500 words") == 0)
        #expect(
            ContextFacts.similarity(
                "Prefers primary sources over summaries.", "Prefers primary sources to summaries")
                == 1)
    }

    @Test func rememberAnswersDuplicateNamingTheMatchingLine() throws {
        let f = try StoreFixture()
        let first = try f.store.remember("Prefers primary sources over summaries.", by: f.agent)
        let line = try #require(first.added)
        let again = try f.store.remember("Prefers primary sources to summaries", by: f.agent)
        #expect(again.duplicate && again.matching == line && again.version == first.version)
        let other = try f.store.remember("Prefers summaries over primary sources", by: f.agent)
        #expect(!other.duplicate && other.added != nil)
    }

    /// A fact added beside one that says otherwise (a negation or a number changed) or that
    /// is close without being the same is still added, and names that line.
    @Test func aFactSayingOtherwiseOrAlikeNamesItsNeighbour() {
        let context = Array(
            """
            # Context

            - I teach secondary-school English; drafts should be usable with 16-year-olds.
            - 2026-11-20: Prefers primary sources over summaries.
            - 2026-11-21: Reads 3 chapters a night.

            """.utf8)
        let opposite = ContextFacts.neighbour(
            of: "Does not prefer primary sources to summaries", in: context)
        #expect(opposite?.contradicts == true)
        #expect(opposite?.line == "- 2026-11-20: Prefers primary sources over summaries.")
        let number = ContextFacts.neighbour(of: "Reads 5 chapters a night", in: context)
        #expect(number?.contradicts == true && number?.line.contains("3 chapters") == true)
        let alike = ContextFacts.neighbour(of: "Teaches secondary-school English", in: context)
        #expect(alike?.contradicts == false && alike?.line.contains("I teach") == true)
        #expect(ContextFacts.neighbour(of: "Keeps a cat called Ahab", in: context) == nil)
        // A duplicate is not a neighbour: remember answers it as a duplicate before.
        #expect(ContextFacts.matching("Prefers primary sources to summaries", in: context) != nil)
    }
}
