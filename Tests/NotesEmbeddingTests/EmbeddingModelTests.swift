import Foundation
import NotesTestSupport
import Testing

@testable import NotesEmbedding

/// The reference fixture: token ids and vectors from sentence-transformers
/// (scripts/make-embedding-fixture.py).
struct ReferenceCase: Decodable {
    var text: String
    var input_ids: [Int32]
    var embedding: [Float]
}

struct Reference: Decodable {
    var max_seq_length: Int
    var cases: [ReferenceCase]

    static let shared: Reference = {
        let path = Repository.root + "/Tests/Fixtures/embedding/reference.json"
        let data = try! Data(contentsOf: URL(fileURLWithPath: path))
        return try! JSONDecoder().decode(Reference.self, from: data)
    }()
}

/// The installed model, loaded once for every test here.
enum InstalledModel {
    static let model: EmbeddingModel? = Repository.installedModel.flatMap {
        try? EmbeddingModel(directory: URL(fileURLWithPath: $0))
    }
}

func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Float = 0
    var na: Float = 0
    var nb: Float = 0
    for i in a.indices {
        dot += a[i] * b[i]
        na += a[i] * a[i]
        nb += b[i] * b[i]
    }
    return dot / (na.squareRoot() * nb.squareRoot())
}

/// Against the real model. `scripts/setup` installs it (CI runs setup, so these run there);
/// without it they are skipped, never failed.
@Suite(
    .enabled(
        if: Repository.installedModel != nil,
        "the embedding model is not installed (scripts/setup installs it)"))
struct NotesEmbeddingTests {
    var model: EmbeddingModel { InstalledModel.model! }

    @Test func loadsTheModel() {
        #expect(InstalledModel.model != nil)
        #expect(model.dimensions == 384)
        #expect(model.maxTokens == Reference.shared.max_seq_length)
        #expect(model.identifier.hasPrefix("all-MiniLM-L6-v2@"))
    }

    @Test func tokenIDsMatchTheReferenceTokenizer() {
        for c in Reference.shared.cases {
            #expect(model.tokenIDs(c.text) == c.input_ids, "text: \(c.text.debugDescription)")
        }
    }

    @Test func tokenCountHasNoSpecialsAndNoCut() {
        #expect(model.tokenCount("") == 0)
        #expect(model.tokenCount("how did the whaling industry decline") == 6)
        let long = Reference.shared.cases.map(\.text).max { $0.count < $1.count }!
        #expect(model.tokenCount(long) > 254)
        #expect(model.tokenIDs(long).count == 256)
        #expect(model.tokenIDs(long, maxTokens: 10).count == 10)
        // A 1 MB text is cut at the model's window (the cost of the cut is bench/embed.py's).
        let huge = String(repeating: "whale ", count: 200_000)
        #expect(model.tokenIDs(huge).count == 256)
        #expect(model.tokenCount(String(repeating: "whale ", count: 2_000)) == 2_000)
    }

    @Test func embeddingsMatchTheReference() throws {
        let cases = Reference.shared.cases
        let vectors = try model.embed(cases.map(\.text))
        var worst: Float = 1
        for (c, v) in zip(cases, vectors) {
            #expect(v.count == 384)
            let similarity = cosine(v, c.embedding)
            worst = min(worst, similarity)
            #expect(similarity >= 0.999, "text: \(c.text.debugDescription) cosine \(similarity)")
            let norm = v.reduce(0) { $0 + $1 * $1 }.squareRoot()
            #expect(abs(norm - 1) < 1e-4)
        }
        print("embedding: minimum cosine to the reference over \(cases.count) texts: \(worst)")
    }

    @Test func aShortTextAloneMatchesTheReference() throws {
        // Alone, a text of a few tokens goes through CVectorKernels' products, not OpenBLAS.
        let short = Reference.shared.cases.filter {
            model.tokenIDs($0.text).count <= EmbeddingModel.directRows
        }
        #expect(short.count >= 3)
        for c in short {
            let similarity = cosine(try model.embed([c.text])[0], c.embedding)
            #expect(similarity >= 0.999, "text: \(c.text.debugDescription) cosine \(similarity)")
        }
    }

    @Test func aBatchGivesTheSameVectorsAsOneAtATime() throws {
        let texts = Reference.shared.cases.map(\.text)
        let together = try model.embed(texts)
        for (text, vector) in zip(texts, together).prefix(8) {
            let alone = try model.embed([text])[0]
            #expect(cosine(alone, vector) > 0.99999, "text: \(text.debugDescription)")
            #expect(zip(alone, vector).allSatisfy { abs($0 - $1) < 1e-4 })
        }
        #expect(try model.embed([]).isEmpty)
    }

    @Test func concurrentCallsAgree() throws {
        let texts = Reference.shared.cases.map(\.text)
        let expected = try model.embed(texts)
        let model = self.model
        let results = UnsafeSendableBox(Array(repeating: [[Float]](), count: 4))
        DispatchQueue.concurrentPerform(iterations: 4) { i in
            let got = (try? model.embed(texts)) ?? []
            results.lock.lock()
            results.value[i] = got
            results.lock.unlock()
        }
        for got in results.value {
            #expect(got.count == expected.count)
            for (a, b) in zip(got, expected) { #expect(cosine(a, b) > 0.99999) }
        }
    }

    @Test func badTokenIDsAreAnError() {
        #expect(throws: EmbeddingError.self) { try model.embed(tokenIDs: [[101, 40000, 102]]) }
        #expect(throws: EmbeddingError.self) { try model.embed(tokenIDs: [[]]) }
        #expect(throws: EmbeddingError.self) {
            try model.embed(tokenIDs: [Array(repeating: 1000, count: 513)])
        }
    }
}

final class UnsafeSendableBox<T>: @unchecked Sendable {
    var value: T
    let lock = NSLock()
    init(_ value: T) { self.value = value }
}
