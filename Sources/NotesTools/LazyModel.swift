import Foundation
import NotesEmbedding
import NotesIndex

/// The installed model, loaded on first use (``InstalledModel/lazy(threads:)``).
final class LazyModel: TextEmbedder, @unchecked Sendable {
    private let threads: Int?
    private let lock = NSLock()
    private var loaded: Result<EmbeddingModel, EmbeddingError>?

    init(threads: Int?) { self.threads = threads }

    private func model() throws(EmbeddingError) -> EmbeddingModel {
        lock.lock()
        defer { lock.unlock() }
        if loaded == nil {
            loaded = Result { () throws(EmbeddingError) in try ModelLocation.load(threads: threads)
            }
        }
        return try loaded!.get()
    }

    /// Empty when the model does not load: no stored vectors match it, so search runs by words.
    var identifier: String { (try? model().identifier) ?? "" }
    var dimensions: Int { (try? model().dimensions) ?? 0 }
    func embed(_ texts: [String]) throws -> [[Float]] { try model().embed(texts) }
    var paraphraseSimilarity: Float? { InstalledModel.paraphraseSimilarity }
}
