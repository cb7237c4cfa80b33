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
    /// The cosine similarity from which this model's passage says what a query asks in
    /// other words: its file comes first in a fused answer, as a file whose title holds
    /// every word does. A model's own calibration; nil (the default): the fused scores alone.
    var paraphraseSimilarity: Float? { get }
}

extension TextEmbedder {
    public var paraphraseSimilarity: Float? { nil }
}
