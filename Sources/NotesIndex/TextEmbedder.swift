import Foundation
import NotesCore

/// What the index needs of an embedding model: texts in, unit vectors out. The index stores
/// and compares vectors; it never computes them (the model lives in `NotesEmbedding`, and
/// the command line, `notes watch`, the MCP server and the agent hand one in).
public protocol TextEmbedder: Sendable {
    /// Names the model and its weights: vectors made under another identifier are dropped.
    var identifier: String { get }
    /// The length of every vector.
    var dimensions: Int { get }
    /// One L2-normalised vector per text, in order.
    func embed(_ texts: [String]) throws -> [[Float]]
}

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
