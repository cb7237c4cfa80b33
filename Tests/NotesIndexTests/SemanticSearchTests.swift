import Foundation
import GRDB
import NotesCore
import NotesTestSupport
import Testing

@testable import NotesIndex

/// A small embedder whose "meaning" is a table of concepts: synonyms share a dimension, so a
/// note about an automobile is near a query about a car without sharing a word with it.
/// Counts the texts it embedded, so tests can see what a pass re-embedded.
final class ConceptEmbedder: TextEmbedder, @unchecked Sendable {
    let identifier: String
    let dimensions = 8
    private let lock = NSLock()
    private var texts: [String] = []

    static let concepts: [String: Int] = [
        "car": 0, "automobile": 0, "vehicle": 0, "engine": 0,
        "whale": 1, "cetacean": 1, "leviathan": 1,
        "garden": 2, "flowers": 2, "roses": 2,
        "storm": 3, "tempest": 3, "gale": 3,
    ]

    /// The similarity from which a passage counts as saying what the query asks (nil: none).
    let paraphraseSimilarity: Float?

    init(identifier: String = "concepts@1", paraphraseSimilarity: Float? = nil) {
        self.identifier = identifier
        self.paraphraseSimilarity = paraphraseSimilarity
    }

    var embedded: [String] { lock.withLock { texts } }

    func embed(_ texts: [String]) throws -> [[Float]] {
        lock.withLock { self.texts += texts }
        return texts.map { text in
            var vector = [Float](repeating: 0, count: dimensions)
            vector[dimensions - 1] = 0.2  // every text has a little of "anything"
            for word in text.lowercased().split(whereSeparator: { !$0.isLetter }) {
                if let concept = Self.concepts[String(word)] { vector[concept] += 1 }
            }
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / norm }
        }
    }
}

@Suite struct SemanticSearchTests {
    static let files: [String: String] = [
        "garage/car.md": "# Car\n\nThe car needs a new engine before winter.\n",
        "garage/automobile.md": "# Old automobile\n\nMy grandfather kept a vehicle in the barn.\n",
        "sea/whales.md": "# Whales\n\nA cetacean surfaced near the boat.\n",
        "home/roses.md": "# Roses\n\nThe flowers in the garden bloomed.\n",
        "sea/gale.md": "# Gale\n\nA tempest drove the ship north.\n",
    ]

    let fixture = IndexFixture(files: SemanticSearchTests.files, filler: 4)

    func embedded(_ embedder: ConceptEmbedder = ConceptEmbedder()) throws -> (
        NoteIndex, ConceptEmbedder
    ) {
        let index = try fixture.refreshed()
        try index.embedPending(with: embedder)
        return (index, embedder)
    }

    func chunkCount(_ index: NoteIndex) throws -> Int {
        try DatabaseQueue(path: index.databasePath).read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM chunks")!
        }
    }

    @Test func aPassEmbedsEverySectionOnceAndThenNothing() throws {
        let (index, embedder) = try embedded()
        let coverage = try index.semanticCoverage()
        #expect(coverage.embeddedFiles == coverage.files && coverage.files == 9)
        #expect(coverage.model == "concepts@1")
        let first = embedder.embedded.count
        #expect(first > 0)
        #expect(try index.embedPending(with: embedder) == 0)
        #expect(embedder.embedded.count == first)
    }

    /// A note of front matter alone (Dendron and Obsidian have many) or an empty file has no
    /// text to embed: coverage is complete without it, in the count and in a search's report.
    @Test func filesWithoutTextNeverCountAsWaitingForVectors() throws {
        fixture.write(
            "notes/only-front-matter.md", "---\ntitle: Only front matter\ntags: [a]\n---\n")
        fixture.write("notes/empty.md", "")
        let (index, _) = try embedded()
        let coverage = try index.semanticCoverage()
        #expect(coverage.files == 9 && coverage.embeddedFiles == 9 && coverage.isComplete)
        let results = try fixture.search("what keeps a car running", index) {
            $0.embedder = ConceptEmbedder()
        }
        #expect(results.semantic?.files == 9 && results.semantic?.isComplete == true)
    }

    /// The meaning side ranks a bounded number of files: when every one of them is close
    /// enough to list, the total is marked as a lower bound instead of posing as a count.
    @Test func aTotalCutByTheMeaningSidesDepthSaysAtLeast() throws {
        for i in 0..<(NoteIndex.semanticDepth + 20) {
            fixture.write(
                "cars/car\(i).md", "# Note \(i)\n\nThe vehicle number \(i) and its engine.\n")
        }
        let (index, _) = try embedded()
        let many = try fixture.search("automobile", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(many.total >= NoteIndex.semanticDepth && many.totalAtLeast == true)
        let few = try fixture.search("cetacean", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(few.hits.first?.path == "sea/whales.md")
        #expect(few.totalAtLeast == nil)
    }

    @Test func anEditReEmbedsOnlyTheChangedSectionAndADeleteDropsVectors() throws {
        fixture.write(
            "notes/two.md",
            "# Two parts\n\n## First\n\nStorm notes.\n\n## Second\n\nGarden notes.\n")
        let (index, embedder) = try embedded()
        let before = try chunkCount(index)
        fixture.write(
            "notes/two.md",
            "# Two parts\n\n## First\n\nStorm notes.\n\n## Second\n\nRoses and more roses.\n")
        _ = try index.refresh()
        let seen = embedder.embedded.count
        try index.embedPending(with: embedder)
        let again = Array(embedder.embedded[seen...])
        #expect(again.count == 1)
        #expect(again.first?.contains("Roses and more roses.") == true)
        #expect(try chunkCount(index) == before)
        try FileManager.default.removeItem(atPath: fixture.root + "/notes/two.md")
        _ = try index.refresh()
        // Before the pass removes them, the deleted file's passages are counted nowhere.
        let kept = try index.semanticCoverage().passages
        let search = try fixture.search("tempest", fixture.open()) {
            $0.embedder = embedder
            $0.mode = .semantic
        }
        #expect(search.semantic?.passages == kept)
        try index.embedPending(with: embedder)
        #expect(try chunkCount(index) < before)
        #expect(try chunkCount(index) == kept)
        #expect(try index.semanticCoverage().files == 9)
    }

    @Test func anotherModelsVectorsAreReplaced() throws {
        let (index, _) = try embedded()
        let other = ConceptEmbedder(identifier: "concepts@2")
        try index.embedPending(with: other)
        #expect(try index.semanticCoverage().model == "concepts@2")
        #expect(other.embedded.count > 0)
        // A query with the old model finds nothing by meaning: it runs by words.
        let results = try fixture.search("car", index) { $0.embedder = ConceptEmbedder() }
        #expect(results.mode == .lexical)
    }

    @Test func filesWithTheWordComeFirstThenFilesByMeaning() throws {
        let (index, embedder) = try embedded()
        let results = try fixture.search("car", index) {
            $0.embedder = embedder
            $0.mode = .hybrid
        }
        #expect(results.mode == .hybrid)
        #expect(results.hits.first?.path == "garage/car.md")
        #expect(results.hits.first?.matchedBy == .both)
        let byMeaning = try #require(results.hits.first { $0.path == "garage/automobile.md" })
        #expect(byMeaning.matchedBy == .meaning)
        #expect(byMeaning.snippets.first?.text == "My grandfather kept a vehicle in the barn.")
        #expect(byMeaning.snippets.first?.line == 3)
        // Unrelated notes are not listed by meaning.
        #expect(!results.hits.contains { $0.path == "home/roses.md" })
        #expect(results.semantic?.embeddedFiles == 9)
        // The words alone.
        let lexical = try fixture.search("car", index) {
            $0.embedder = embedder
            $0.mode = .lexical
        }
        #expect(lexical.hits.map(\.path) == ["garage/car.md"])
        #expect(lexical.hits.first?.matchedBy == nil)
    }

    @Test func aSingleWordOrOperatorsKeepTheirExactMeaningUnlessAModeIsAsked() throws {
        let (index, embedder) = try embedded()
        for query in [
            "car", "leviathan", "\"old automobile\"", "car AND engine", "car -winter",
            "cetacean OR gale",
        ] {
            let results = try fixture.search(query, index) { $0.embedder = embedder }
            #expect(results.mode == .lexical, "\(query)")
            #expect(results.hits.allSatisfy { $0.matchedBy == nil }, "\(query)")
        }
        #expect(try fixture.search("leviathan", index) { $0.embedder = embedder }.hits.isEmpty)
        #expect(
            try fixture.search("leviathan", index) {
                $0.embedder = embedder
                $0.mode = .hybrid
            }.hits.first?.path == "sea/whales.md")
    }

    @Test func aNoteNotYetEmbeddedKeepsItsRankByWords() throws {
        let (index, embedder) = try embedded()
        fixture.write(
            "garage/fresh.md",
            "# Notes\n\nThe car engine failed in winter: car engine, winter engine.\n")
        _ = try index.refresh()  // indexed by words, not yet embedded
        let results = try fixture.search("car engine winter", index) { $0.embedder = embedder }
        #expect(results.mode == .hybrid)
        let lexical = try fixture.search("car engine winter", index) {
            $0.embedder = embedder
            $0.mode = .lexical
        }
        #expect(lexical.hits.first?.path == "garage/fresh.md")
        #expect(results.hits.first?.path == "garage/fresh.md")
    }

    /// Twelve sections about storms: more than one batch of a pass.
    static let bigNote =
        "# Big\n\n"
        + (1...12).map {
            "## Part \($0)\n\nStorm and gale number \($0), with more words to make it long enough.\n"
        }.joined(separator: "\n")

    /// A pass stopped after `batches` batches, as a kill or a stop leaves it.
    func embedStopped(_ index: NoteIndex, after batches: Int) throws {
        var done = 0
        try index.embedPending(
            with: ConceptEmbedder(),
            shouldStop: {
                defer { done += 1 }
                return done >= batches
            })
    }

    @Test func coverageCountsOnlyFilesWhoseEverySectionIsEmbedded() throws {
        fixture.write("big.md", Self.bigNote)
        let index = try fixture.refreshed()
        try embedStopped(index, after: 2)
        let partial = try index.semanticCoverage()
        #expect(partial.embeddedFiles == partial.files - 1)
        // A search counts as the SQL does, and still finds the passages the file has.
        let search = try fixture.search("tempest", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(search.semantic?.embeddedFiles == partial.embeddedFiles)
        #expect(search.semantic?.files == partial.files)
        #expect(search.hits.map(\.path).contains("big.md"))
        try index.embedPending(with: ConceptEmbedder())
        let whole = try index.semanticCoverage()
        #expect(whole.embeddedFiles == whole.files)
        let after = try fixture.search("tempest", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(after.semantic?.embeddedFiles == whole.files)
        // The same process counts again after a change to the files, the vectors unchanged:
        // a new note, then a new section in the big one.
        fixture.write("garage/new.md", "# New\n\nA vehicle in the rain.\n")
        _ = try index.refresh()
        let added = try fixture.search("tempest", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(added.semantic?.files == whole.files + 1)
        #expect(added.semantic?.embeddedFiles == whole.files)
        fixture.write("big.md", Self.bigNote + "\n## Part 13\n\nA gale again.\n")
        _ = try index.refresh()
        let grown = try fixture.search("tempest", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(grown.semantic?.files == whole.files + 1)
        #expect(grown.semantic?.embeddedFiles == whole.files - 1)
        #expect(try index.semanticCoverage().embeddedFiles == whole.files - 1)
    }

    @Test func aSearchFindsTheFirstPassagesOfTheOnlyFileWithAnyYet() throws {
        let only = IndexFixture(filler: 0)
        only.write("big.md", Self.bigNote)
        let index = try only.refreshed()
        try embedStopped(index, after: 1)
        let search = try only.search("tempest", index) {
            $0.embedder = ConceptEmbedder()
            $0.mode = .semantic
        }
        #expect(search.semantic?.embeddedFiles == 0 && search.semantic?.files == 1)
        #expect(search.hits.map(\.path) == ["big.md"])
    }

    @Test func aQuestionIsAnsweredByMeaningWhenNoWordMatches() throws {
        let (index, embedder) = try embedded()
        let results = try fixture.search("where was the leviathan seen", index) {
            $0.embedder = embedder
        }
        #expect(results.hits.first?.path == "sea/whales.md")
        #expect(results.hits.first?.matchedBy == .meaning)
        #expect(results.matching == .mostWords)
        // A question with a single significant word ("where is the …") is still a question.
        let oneWord = try fixture.search("where is the leviathan", index) { $0.embedder = embedder }
        #expect(oneWord.mode == .hybrid)
        #expect(oneWord.hits.first?.path == "sea/whales.md")
        let semantic = try fixture.search("leviathan", index) {
            $0.embedder = embedder
            $0.mode = .semantic
        }
        #expect(semantic.hits.first?.path == "sea/whales.md")
        #expect(semantic.mode == .semantic)
    }

    @Test func progressCountsWorkByTextSoTheTimeLeftIsNotShortEarly() throws {
        fixture.write(
            "long/book.md", "# Book\n\n" + String(repeating: "whale ", count: 3_000) + "\n")
        let index = try fixture.refreshed()
        var seen: [EmbeddingProgress] = []
        try index.embedPending(with: ConceptEmbedder()) { seen.append($0) }
        let last = try #require(seen.last)
        #expect(
            last.sectionsDone == last.sectionsTotal && last.workDone == last.workTotal
                && last.workTotal > 0)
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.workDone <= $1.workDone })
        // The long file comes last (smallest first) and weighs more than a small one: at
        // half the sections, less than half of the work is done.
        let half = try #require(seen.first { $0.sectionsDone * 2 >= $0.sectionsTotal })
        #expect(half.workDone * 2 < half.workTotal)
    }

    @Test func aRebuildWithoutVectorsLeavesNoVectorFileBehind() throws {
        let (index, embedder) = try embedded()
        let vectorFile = index.directory + "/index.vectors"
        let question = "where was the leviathan seen"
        _ = try fixture.search(question, index) { $0.embedder = embedder }
        #expect(FileManager.default.fileExists(atPath: vectorFile))
        _ = try index.rebuild()  // words only: the vectors are gone until the next pass
        let results = try fixture.search(question, fixture.open()) { $0.embedder = embedder }
        #expect(results.mode == .lexical)
        #expect(!FileManager.default.fileExists(atPath: vectorFile))
        try index.embedPending(with: embedder)
        _ = try fixture.search(question, fixture.open()) { $0.embedder = embedder }
        #expect(FileManager.default.fileExists(atPath: vectorFile))
    }

    @Test func theVectorFileHoldsTheTableAndAStaleOrBrokenOneIsIgnored() throws {
        let (index, embedder) = try embedded()
        let question = "where was the leviathan seen"
        let first = try fixture.search(question, index) { $0.embedder = embedder }
        let file = index.directory + "/" + VectorFile.fileName
        #expect(FileManager.default.fileExists(atPath: file))
        // The file maps to the same table the database holds.
        let (stored, generation) = try DatabaseQueue(path: index.databasePath).read { db in
            (try VectorTable.load(db), try VectorTable.generation(db))
        }
        let mapped = try #require(
            VectorFile.read(directory: index.directory, generation: generation))
        #expect(
            mapped.count == stored.count && mapped.dimensions == stored.dimensions
                && mapped.count > 0)
        #expect(
            Array(mapped.sectionIDs) == Array(stored.sectionIDs)
                && Array(mapped.digests) == Array(stored.digests))
        #expect(
            Array(mapped.lines) == Array(stored.lines)
                && Array(mapped.scales) == Array(stored.scales))
        #expect(Array(mapped.values) == Array(stored.values))
        #expect(VectorFile.read(directory: index.directory, generation: "another") == nil)
        // Another process (an index opened afresh) answers the same from the file.
        func paths(_ results: SearchResults) -> [String] { results.hits.map(\.path) }
        #expect(
            try paths(fixture.search(question, fixture.open()) { $0.embedder = embedder })
                == paths(first))
        // A torn file is ignored, and rewritten whole.
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(truncate(file, off_t(size / 2)) == 0)
        #expect(VectorFile.read(directory: index.directory, generation: generation) == nil)
        #expect(
            try paths(fixture.search(question, fixture.open()) { $0.embedder = embedder })
                == paths(first))
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int == size)
        // New vectors make the file stale: the next search sees them.
        fixture.write("sea/deep.md", "# Deep\n\nA leviathan rose from the deep.\n")
        _ = try index.refresh()
        try index.embedPending(with: embedder)
        let after = try fixture.search("cetacean", fixture.open()) {
            $0.embedder = embedder
            $0.mode = .hybrid
        }
        #expect(after.hits.contains { $0.path == "sea/deep.md" && $0.matchedBy == .meaning })
        // A symbolic link in its place is not followed.
        let current = try DatabaseQueue(path: index.databasePath).read { db in
            try VectorTable.generation(db)
        }
        #expect(VectorFile.read(directory: index.directory, generation: current) != nil)
        let elsewhere = fixture.dir.path + "/elsewhere.vectors"
        try FileManager.default.moveItem(atPath: file, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere)
        #expect(VectorFile.read(directory: index.directory, generation: current) == nil)
    }

    @Test func theCoverageASearchCountedIsKeptForTheNextProcessUntilAChange() throws {
        let (index, embedder) = try embedded()
        let question = "where was the leviathan seen"
        let first = try fixture.search(question, index) { $0.embedder = embedder }
        let counted = try #require(first.semantic)
        func key() throws -> String {
            try DatabaseQueue(path: index.databasePath).read { db in
                try VectorTable.generation(db) + " "
                    + #require(try LayoutSnapshot.currentToken(db))
            }
        }
        let stored = try #require(CoverageFile.read(directory: index.directory, key: key()))
        #expect(stored.files == counted.files && stored.covered == counted.embeddedFiles)
        #expect(CoverageFile.read(directory: index.directory, key: "another key") == nil)
        // Another process (an index opened afresh) takes the count from the file: one written
        // with other figures under the current key is what it reports.
        CoverageFile.write(
            NoteIndex.FilesWithText(files: 40, withPassages: 30, covered: 20, passages: 500),
            key: try key(),
            directory: index.directory)
        let fromFile = try fixture.search(question, fixture.open()) { $0.embedder = embedder }
        #expect(fromFile.semantic?.files == 40 && fromFile.semantic?.embeddedFiles == 20)
        #expect(fromFile.semantic?.passages == 500)
        // A change to the files changes the key: counted again, and the file rewritten (a
        // temporary file a killed process left is removed then).
        let leftover = index.directory + "/" + CoverageFile.fileName + ".999999999.1"
        #expect(FileManager.default.createFile(atPath: leftover, contents: Data()))
        fixture.write("sea/deep.md", "# Deep\n\nA leviathan rose from the deep.\n")
        _ = try index.refresh()
        let changed = try fixture.search(question, fixture.open()) { $0.embedder = embedder }
        #expect(changed.semantic?.files == counted.files + 1)
        #expect(changed.semantic?.embeddedFiles == counted.embeddedFiles)
        #expect(
            try CoverageFile.read(directory: index.directory, key: key())?.files
                == counted.files + 1)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        // A torn file, or a symbolic link in its place, is not read.
        let file = index.directory + "/" + CoverageFile.fileName
        let size = try #require(
            try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(truncate(file, off_t(size - 2)) == 0)
        #expect(CoverageFile.read(directory: index.directory, key: try key()) == nil)
        CoverageFile.write(
            NoteIndex.FilesWithText(files: 3, withPassages: 2, covered: 1, passages: 5),
            key: try key(),
            directory: index.directory)
        #expect(CoverageFile.read(directory: index.directory, key: try key()) != nil)
        let elsewhere = fixture.dir.path + "/elsewhere.coverage"
        try FileManager.default.moveItem(atPath: file, toPath: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: elsewhere)
        #expect(CoverageFile.read(directory: index.directory, key: try key()) == nil)
    }

    /// How much nearer a file is counts, not only its place: a note far nearer the question
    /// than any other, holding none of its words, comes above files that hold a word of it
    /// and are about something else (rank fusion put them first: each ranked well on both
    /// sides).
    @Test func aFileFarNearestByMeaningComesAboveFilesHoldingOnlyAWord() throws {
        fixture.write("notes/report.md", "# Report\n\nA report on the car and the storm.\n")
        fixture.write("notes/weekly.md", "# Weekly\n\nThe weekly report of the garden.\n")
        let (index, embedder) = try embedded()
        let results = try fixture.search("leviathan report", index) { $0.embedder = embedder }
        #expect(results.mode == .hybrid)
        let paths = results.hits.map(\.path)
        #expect(paths.first == "sea/whales.md", "\(paths)")
        #expect(results.hits.first?.matchedBy == .meaning)
        #expect(
            Set(paths.dropFirst().prefix(2)) == ["notes/report.md", "notes/weekly.md"], "\(paths)")
        // Scores follow the order.
        let scores = results.hits.compactMap(\.score)
        #expect(scores == scores.sorted(by: >) && scores.first == 1, "\(scores)")
    }

    /// A file whose passage says what the question asks (at the model's paraphrase
    /// similarity) comes first in a fused answer, above a file that holds the question's
    /// words and is fairly near; without that calibration the fused scores put the words first.
    @Test func aParaphraseByMeaningComesFirstWhenTheModelSaysWhatOneIs() throws {
        fixture.write(
            "log/sightings.md",
            "# Sightings\n\nSightings of a whale and a cetacean from the car on the road: a sightings log.\n"
        )
        for (embedder, first) in [
            (ConceptEmbedder(), "log/sightings.md"),
            (ConceptEmbedder(paraphraseSimilarity: 0.9), "sea/whales.md"),
        ] {
            let (index, _) = try embedded(embedder)
            let results = try fixture.search("leviathan sightings", index) {
                $0.embedder = embedder
            }
            #expect(results.mode == .hybrid)
            #expect(results.hits.first?.path == first, "\(results.hits.map(\.path))")
            #expect(results.hits.map(\.path).contains("log/sightings.md"))
        }
        // A single word keeps the files holding it first, paraphrase or not.
        let strict = ConceptEmbedder(paraphraseSimilarity: 0.9)
        let (index, _) = try embedded(strict)
        let word = try fixture.search("sightings", index) {
            $0.embedder = strict
            $0.mode = .hybrid
        }
        #expect(word.hits.first?.path == "log/sightings.md")
    }

    @Test func aNoteEditedSinceItsPassagesKeepsItsPlace() throws {
        fixture.write("sea/leviathan.md", "# Leviathan\n\nThe leviathan surfaced beside us.\n")
        let (index, embedder) = try embedded()
        func paths() throws -> [String] {
            try fixture.search("cetacean surfaced", index) {
                $0.embedder = embedder
                $0.mode = .hybrid
            }.hits.map(\.path)
        }
        // Holding both words and nearest in meaning, the note comes first.
        #expect(try paths().first == "sea/whales.md")
        // Edited, it keeps its passage until the next pass makes it again, and its place.
        fixture.write("sea/whales.md", "# Whales\n\nA cetacean surfaced near the boat at dawn.\n")
        _ = try index.refresh()
        #expect(try paths().first == "sea/whales.md")
        try index.embedPending(with: embedder)
        #expect(try paths().first == "sea/whales.md")
    }

    /// The hits of `query` by meaning alone in `index`, as searched with `embedder`.
    func searchedByMeaning(_ query: String, _ index: NoteIndex, _ embedder: ConceptEmbedder)
        throws -> [SearchHit]
    {
        try fixture.search(query, index) {
            $0.embedder = embedder
            $0.mode = .semantic
        }.hits
    }

    /// A deleted file's passages go with it: a file added later under the same id is not
    /// found by what the deleted one said.
    @Test func aDeletedFilesPassagesDoNotPassToAFileGivenItsID() throws {
        fixture.write("zzz/storm.md", "# Storm\n\nA tempest and a gale at night.\n")
        let (index, embedder) = try embedded()
        func byMeaning() throws -> [String] {
            try searchedByMeaning("gale", index, embedder).map(\.path)
        }
        #expect(try byMeaning().contains("zzz/storm.md"))
        func id(_ path: String) throws -> Int64? {
            try DatabaseQueue(path: index.databasePath).read { db in
                try Int64.fetchOne(
                    db, sql: "SELECT id FROM files WHERE path = ?", arguments: [path])
            }
        }
        let old = try #require(try id("zzz/storm.md"))
        try FileManager.default.removeItem(atPath: fixture.root + "/zzz/storm.md")
        _ = try index.refresh()
        fixture.write("zzz/garage.md", "# Garage\n\nThe engine of the car.\n")
        _ = try index.refresh()
        #expect(try id("zzz/garage.md") == old)  // SQLite gave the new file the freed id
        let found = try byMeaning()
        #expect(!found.contains("zzz/garage.md") && !found.contains("zzz/storm.md"), "\(found)")
    }

    /// A note found by meaning alone is still found after an edit, before the next pass
    /// embeds it again (D273); a section that is gone no longer answers.
    @Test func aNoteFoundOnlyByMeaningIsStillFoundAfterAnEdit() throws {
        let (index, embedder) = try embedded()
        func byMeaning() throws -> [String] {
            try searchedByMeaning("leviathan", index, embedder).map(\.path)
        }
        #expect(try byMeaning() == ["sea/whales.md"])
        fixture.write(
            "sea/whales.md", "# Whales\n\nA cetacean surfaced near the boat.\n\nSeen at dawn.\n")
        _ = try index.refresh()
        let made = embedder.embedded.count
        #expect(try byMeaning() == ["sea/whales.md"])
        #expect(embedder.embedded.count == made + 1)  // the query alone: nothing re-embedded
        // Its text gone from every section, the old passage answers no more.
        fixture.write("sea/whales.md", "")
        _ = try index.refresh()
        #expect(try byMeaning() == [])
    }

    @Test func anEmbedderThatFailsSaysWhyNotToRebuildTheIndex() throws {
        struct ModelGone: Error, CustomStringConvertible {
            var description: String { "the model files are gone (reinstall the model)" }
        }
        final class FailingEmbedder: TextEmbedder, @unchecked Sendable {
            let identifier = "concepts@1"
            let dimensions = 8
            func embed(_ texts: [String]) throws -> [[Float]] { throw ModelGone() }
        }
        let index = try fixture.refreshed()
        do {
            try index.embedPending(with: FailingEmbedder())
            Issue.record("a failing embedder embedded")
        } catch {
            #expect(error.code == .notFound)
            #expect(
                error.message
                    == "cannot embed passages: the model files are gone (reinstall the model)")
            #expect(error.hint?.contains("rebuild") != true)
        }
        #expect(try chunkCount(index) == 0)
    }

    @Test func filtersApplyToBothSides() throws {
        let (index, embedder) = try embedded()
        #expect(
            try fixture.search("car in:sea", index) {
                $0.embedder = embedder
                $0.mode = .hybrid
            }.hits.isEmpty)
        let garage = try fixture.search("car in:garage", index) {
            $0.embedder = embedder
            $0.mode = .hybrid
        }
        #expect(Set(garage.hits.map(\.path)) == ["garage/car.md", "garage/automobile.md"])
        let excluded = try fixture.search("vehicle -grandfather", index) {
            $0.embedder = embedder
            $0.mode = .hybrid
        }
        #expect(!excluded.hits.contains { $0.path == "garage/automobile.md" })
        let semanticOnly = try fixture.search("car path:garage/auto*", index) {
            $0.embedder = embedder
            $0.mode = .semantic
        }
        #expect(semanticOnly.hits.map(\.path) == ["garage/automobile.md"])
    }

    @Test func withoutVectorsOrAModelSearchRunsByWords() throws {
        let index = try fixture.refreshed()
        let noModel = try fixture.search("car", index)
        #expect(noModel.mode == .lexical && noModel.hits.map(\.path) == ["garage/car.md"])
        let notYet = try fixture.search("car engine", index) { $0.embedder = ConceptEmbedder() }
        #expect(notYet.mode == .lexical && notYet.semantic?.embeddedFiles == 0)
        let error = #expect(throws: NotesError.self) {
            try fixture.search("car", index) { $0.mode = .semantic }
        }
        #expect(error?.code == .invalidArgument)
    }

    @Test func relatedNotesAreNearestInMeaningAndExcludeTheNoteItself() throws {
        let (index, _) = try embedded()
        let related = try index.related(to: "garage/car.md", limit: 3)
        #expect(related.related.first?.path == "garage/automobile.md")
        #expect(!related.related.contains { $0.path == "garage/car.md" })
        #expect(related.related.count == 3)
        #expect(
            related.related.map(\.similarity) == related.related.map(\.similarity).sorted(by: >))
        let error = #expect(throws: NotesError.self) { try index.related(to: "nowhere.md") }
        #expect(error?.code == .notFound)
        // A note with no text never gets vectors: said so, rather than to run `notes index`.
        fixture.write("empty.md", "---\ntags: [x]\n---\n")
        _ = try index.refresh()
        try index.embedPending(with: ConceptEmbedder())
        let empty = #expect(throws: NotesError.self) { try index.related(to: "empty.md") }
        #expect(empty?.message.contains("has no text to compare") == true)
        #expect(empty?.hint?.contains("notes index") == false)
        fixture.write("fresh.md", "# Fresh\n\nA car in the rain.\n")
        _ = try index.refresh()
        let fresh = #expect(throws: NotesError.self) { try index.related(to: "fresh.md") }
        #expect(fresh?.message.contains("no passage vectors yet") == true)
    }

    @Test func theNearestFilesAreTheMostSimilarInOrderWithTiesByRow() {
        var random = SeededGenerator(seed: 7)
        for count in [0, 1, 5, 100, 3_000] {
            // Few distinct similarities, so ties are common.
            let matches = (0..<count).map { row -> VectorTable.Match in
                let similarity = Float(Int.random(in: 0..<40, using: &random)) / 40
                return VectorTable.Match(row: row, similarity: similarity, score: similarity)
            }
            let sorted = matches.sorted { ($0.score, $1.row) > ($1.score, $0.row) }
            for limit in [1, 10, 100] {
                let nearest = VectorTable.nearest(matches, limit: limit)
                #expect(nearest.map(\.row) == sorted.prefix(limit).map(\.row))
            }
        }
    }

    /// A table of 4-dimensional passages whose similarity to the query (1, 0, 0, 0) is the
    /// given value, each file's passages in one run.
    private func table(_ files: [(file: Int64, similarities: [Float])]) -> VectorTable {
        var sections: [Int64] = []
        var values: [Int8] = []
        for (file, similarities) in files {
            for (n, similarity) in similarities.enumerated() {
                sections.append(file << IndexSchema.sectionBits | Int64(n))
                values += [Int8(similarity * 127), 0, 0, 0]
            }
        }
        let storage = VectorTable.Storage(
            sectionIDs: sections, digests: sections.map { _ in 0 },
            lines: sections.map { _ in 0 }, scales: sections.map { _ in 1 / 127 },
            values: values)
        return VectorTable(generation: "test", dimensions: 4, storage: storage)
    }

    @Test func aFileOfManyPassagesRanksByItsBestLessItsLengthPenalty() throws {
        // A book of a thousand passages whose best is a little nearer than a note's best:
        // the book's best is what its many passages reach by chance.
        let penalty = VectorTable.lengthPenalty(passages: 1000)
        #expect(penalty > 0.02)
        let book = [Float](repeating: 0.3, count: 999) + [0.5 + penalty / 2]
        let near = table([(1, book), (2, [0.2, 0.5, 0.1]), (3, [0.45])])
        let ranked = near.bestPerFile([1, 0, 0, 0], limit: 10)
        let files = ranked.map { near.sectionIDs[$0.row] >> IndexSchema.sectionBits }
        #expect(files == [2, 1, 3])
        // Each file's own count of passages: a note of a few loses nothing.
        #expect(ranked[0].score == ranked[0].similarity)
        #expect(abs(ranked[1].score - (ranked[1].similarity - penalty)) < 1e-6)
        #expect(ranked[2].score == ranked[2].similarity)
        #expect(VectorTable.lengthPenalty(passages: Int(VectorTable.passagesFree)) == 0)
        #expect(near.fileSections.mostPassages == 1000)
        #expect(near.largestLengthPenalty == penalty)
        // A book clearly nearer still comes first.
        let far = table([
            (1, [0.5]), (2, [Float](repeating: 0.3, count: 999) + [0.5 + penalty * 2]),
        ])
        let first = try #require(far.bestPerFile([1, 0, 0, 0], limit: 10).first)
        #expect(far.sectionIDs[first.row] >> IndexSchema.sectionBits == 2)
    }

    @Test func byMeaningAloneFilesAreInScoreOrderAndScoredSo() {
        // The book's passage is nearer, the note's file scores higher once lengths count.
        func passage(_ file: Int64, similarity: Float, score: Float) -> NoteIndex.PassageMatch {
            NoteIndex.PassageMatch(
                file: file, section: file << IndexSchema.sectionBits, line: 0,
                similarity: similarity, score: score)
        }
        let nearest: [Int64: NoteIndex.PassageMatch] = [
            1: passage(1, similarity: 0.6, score: 0.52),
            2: passage(2, similarity: 0.55, score: 0.55),
        ]
        let (entries, total) = NoteIndex.fused(
            RankedFiles(), nearest, mode: .semantic, wordsFirst: false)
        #expect(total == 2)
        #expect(entries.map(\.file) == [2, 1])
        #expect(entries.map(\.relevance) == [Double(Float(0.55)), Double(Float(0.52))])
    }

    @Test func passagesCarryTitleAndHeadingAndSplitLongSections() {
        let words = (0..<400).map { "w\($0)" }.joined(separator: " ")
        let chunks = TextChunks.chunks(
            title: "Book", heading: "Chapter 1", body: "intro line\n" + words)
        #expect(chunks.count == 3)
        #expect(chunks.allSatisfy { $0.text.hasPrefix("Book — Chapter 1\n") })
        // the overlap
        #expect(chunks[1].text.contains("w\(TextChunks.wordsPerChunk - TextChunks.overlap - 1) "))
        #expect(chunks[0].line == 0 && chunks[1].line == 1)
        #expect(TextChunks.chunks(title: "", heading: "", body: "").isEmpty)
        let long = TextChunks.chunks(
            title: "T", heading: "H", body: String(repeating: "word ", count: 10_000))
        #expect(long.count == TextChunks.maxChunksPerSection)
        // A file's first section also has its title alone.
        let first = TextChunks.chunks(
            title: "Book", heading: "Chapter 1", body: "intro line\n" + words, titlePassage: true)
        #expect(first.count == 4 && first.last == TextChunks.Chunk(text: "Book", line: 0))
        #expect(first.dropLast() == chunks[...])
        // context.md's title passage says what the file is for; other kinds have no role.
        let role = TextChunks.role(of: .context)
        #expect(role == "what the agent has learned about me")
        #expect(TextChunks.role(of: .note) == nil && TextChunks.role(of: .journal) == nil)
        let context = TextChunks.chunks(
            title: "Context", heading: "Context", body: "- likes tea", titlePassage: true,
            role: role)
        #expect(context.last?.text == "Context: what the agent has learned about me")
        #expect(
            TextChunks.chunks(title: "", heading: "", body: "x", titlePassage: true, role: role)
                .last?.text == "what the agent has learned about me")
        // A first section that is a heading alone (the note opens with its subsections).
        #expect(
            TextChunks.chunks(
                title: "Context", heading: "Context", body: "", titlePassage: true, role: role
            ).map(\.text) == ["Context", "Context: what the agent has learned about me"])
        #expect(
            TextChunks.chunks(title: "Notes", heading: "Notes", body: "", titlePassage: true)
                .map(\.text) == ["Notes"])
    }

    /// An index embedded with layout 2 (title passages, no roles) makes again only the first
    /// section of context.md: the one passage that changed.
    @Test func fromLayoutTwoOnlyContextIsEmbeddedAgain() throws {
        fixture.write(
            "context.md", "# Context\n\n- Prefers tea to coffee.\n\n## Later\n\n- Reads at night.\n"
        )
        let (index, embedder) = try embedded()
        #expect(embedder.embedded.contains("Context: what the agent has learned about me"))
        let before = try chunkCount(index)
        try DatabaseQueue(path: index.databasePath).write { db in
            try db.execute(sql: "UPDATE meta SET value = '2' WHERE key = 'passage_layout'")
        }
        let made = embedder.embedded.count
        #expect(try index.embedPending(with: embedder) > 0)
        #expect(try chunkCount(index) == before)
        let again = Array(embedder.embedded[made...])
        #expect(again.contains("Context: what the agent has learned about me"), "\(again)")
        #expect(again.allSatisfy { $0.hasPrefix("Context") }, "\(again)")
        #expect(try index.embedPending(with: embedder) == 0)
    }

    @Test func aNoteIsFoundByWhatItsTitleSaysThoughItsTextIsAboutSomethingElse() throws {
        // The text's one passage is mostly about engines: only the title says "roses".
        fixture.write(
            "home/shed.md",
            "# Roses\n\nThe car engine, the vehicle engine, the automobile engine, an engine.\n")
        let (paths, snippet) = try foundByMeaning("home/shed.md", searching: "flowers")
        #expect(paths.contains("home/shed.md"))
        // Its snippet is its text, not the bare title.
        #expect(snippet?.line == 3)
    }

    /// The paths `query` finds by meaning alone, and the first snippet of `path` among them.
    func foundByMeaning(_ path: String, searching query: String) throws -> (
        paths: [String], snippet: Snippet?
    ) {
        let (index, embedder) = try embedded()
        let hits = try searchedByMeaning(query, index, embedder)
        return (hits.map(\.path), hits.first { $0.path == path }?.snippets.first)
    }

    /// A note that opens with its subsections: found by its title, it shows the first text
    /// under it rather than the bare heading.
    @Test func aHeadingAloneFoundByMeaningShowsTheTextUnderIt() throws {
        fixture.write(
            "home/plot.md",
            "# Roses\n\n## Spring\n\nThe car engine, the vehicle engine, an engine.\n")
        let (paths, snippet) = try foundByMeaning("home/plot.md", searching: "flowers")
        #expect(snippet?.line == 5, "\(paths)")
        #expect(snippet?.section == "Spring")
        #expect(snippet?.text.hasPrefix("The car engine") == true, "\(String(describing: snippet))")
    }

    /// A table found by meaning with none of the query's words shows its first row, not
    /// the header and delimiter rows.
    @Test func aTableFoundByMeaningShowsItsFirstRowNotItsHeader() throws {
        fixture.write(
            "home/garden.md",
            "# Roses\n\n| name | colour |\n|---|:---:|\n| the car engine | grey |\n| a vehicle | red |\n"
        )
        let (paths, snippet) = try foundByMeaning("home/garden.md", searching: "flowers")
        #expect(snippet?.line == 5, "\(paths)")
        #expect(
            snippet?.text.hasPrefix("| the car engine") == true, "\(String(describing: snippet))")
        #expect(
            SnippetBuilder.isDelimiterRow("|---|:---:|")
                && SnippetBuilder.isDelimiterRow(" --- | --- "))
        #expect(
            !SnippetBuilder.isDelimiterRow("| a - b |") && !SnippetBuilder.isDelimiterRow("---"))
    }

    @Test func passagesOfAnOlderLayoutAreMadeAgainForFirstSectionsOnly() throws {
        let (index, embedder) = try embedded()
        let before = try chunkCount(index)
        try DatabaseQueue(path: index.databasePath).write { db in
            // As an index embedded before title passages: none, and no layout recorded.
            try db.execute(
                sql: "DELETE FROM chunks WHERE section_id & ? = 0 AND ordinal > 0",
                arguments: [IndexSchema.rowsPerFile - 1])
            try db.execute(sql: "DELETE FROM meta WHERE key = 'passage_layout'")
        }
        #expect(try chunkCount(index) < before)
        let made = embedder.embedded.count
        #expect(try index.embedPending(with: embedder) > 0)
        #expect(try chunkCount(index) == before)
        // Only first sections were embedded again (all their passages); later ones kept theirs.
        let firstSections = try DatabaseQueue(path: index.databasePath).read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM chunks WHERE section_id & ? = 0",
                arguments: [IndexSchema.rowsPerFile - 1])!
        }
        #expect(embedder.embedded.count - made == firstSections)
        #expect(embedder.embedded[made...].contains("Whales"))
        #expect(try index.embedPending(with: embedder) == 0)
    }
}
