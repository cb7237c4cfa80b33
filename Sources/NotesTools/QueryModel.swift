import Foundation
import NotesIndex

/// The installed model for one search, started early (``InstalledModel/embedding(query:)``):
/// embedding the expected query returns the vector made meanwhile; anything else runs
/// the model as usual.
public final class QueryModel: TextEmbedder, @unchecked Sendable {
    private let model = LazyModel(threads: 1)
    private let query: String
    private let done = DispatchSemaphore(value: 0)
    private var vector: [Float]?

    init(query: String) {
        self.query = query
        Thread.detachNewThread { [self] in
            vector = try? model.embed([query]).first
            done.signal()
        }
    }

    /// The model for the search (a ``TextEmbedder``).
    public var embedder: any TextEmbedder { self }

    /// Waits for the early work: the process must not exit while the model runs.
    public func finish() {
        done.wait()
        done.signal()
    }

    public var identifier: String { model.identifier }
    public var dimensions: Int { model.dimensions }

    public func embed(_ texts: [String]) throws -> [[Float]] {
        if texts == [query] {
            finish()
            if let vector { return [vector] }
        }
        return try model.embed(texts)
    }
}
