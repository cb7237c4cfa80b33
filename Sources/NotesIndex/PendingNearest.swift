import Foundation
import NotesCore

/// A query's nearest passages being found on a thread of their own: the query's vector made
/// (loading the model if need be) and compared with every stored vector, while the search
/// ranks by words on its own thread.
final class PendingNearest: @unchecked Sendable {
    /// The files whose passages are nearest the query, best first (at most `limit`); nil when
    /// `embedder` is not the model the stored passages were made with, as their vectors would
    /// not compare.
    typealias Found = [VectorTable.Match]?

    private let done = DispatchSemaphore(value: 0)
    private var result: Result<Found, NotesError> = .success(nil)

    init(
        _ embedder: any TextEmbedder, text: String, storedModel: String, in table: VectorTable,
        limit: Int
    ) {
        Thread.detachNewThread { [self] in
            do {
                if embedder.identifier == storedModel, let vector = try embedder.embed([text]).first
                {
                    result = .success(table.bestPerFile(vector, limit: limit))
                }
            } catch {
                result = .failure(NotesError(.internal, "cannot embed the query: \(error)"))
            }
            done.signal()
        }
    }

    func wait() throws(NotesError) -> Found {
        done.wait()
        done.signal()
        return try result.get()
    }
}
