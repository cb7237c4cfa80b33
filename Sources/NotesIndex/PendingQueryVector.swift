import Foundation
import NotesCore

/// A query's vector being made on a thread of its own, so that loading the model and running
/// it overlap with ranking by words.
final class PendingQueryVector: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<[Float]?, NotesError> = .success(nil)

    /// Starts embedding `text`; the vector is nil when `embedder` is not the model the
    /// stored passages were made with (`storedModel`), as their vectors would not compare.
    init(_ embedder: any TextEmbedder, text: String, storedModel: String) {
        Thread.detachNewThread { [self] in
            do {
                result = .success(
                    embedder.identifier == storedModel ? try embedder.embed([text]).first : nil)
            } catch {
                result = .failure(NotesError(.internal, "cannot embed the query: \(error)"))
            }
            done.signal()
        }
    }

    func wait() throws(NotesError) -> [Float]? {
        done.wait()
        done.signal()
        return try result.get()
    }
}
