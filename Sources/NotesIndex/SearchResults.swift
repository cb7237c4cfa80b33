import Foundation
import NotesCore

/// The answer to a search.
public struct SearchResults: Sendable, Codable {
    public var query: String
    /// How many files match (hits are the first `limit` of them).
    public var total: Int
    /// The meaning side ranks at most ``NoteIndex/semanticDepth`` files; when all of those
    /// were close enough to be listed, more may be, and `total` is a lower bound (nil: exact).
    public var totalAtLeast: Bool? = nil
    public var hits: [SearchHit]
    /// For a plain-words query: whether every file the answer counts (``total``, not only the
    /// hits shown) holds all the ``words``, or some hold only some of them or match by meaning
    /// alone (absent for a query with operators, which must match exactly).
    public var matching: Matching? = nil
    /// For a plain-words query, the words it ranked by (its common words left out).
    public var words: [String]? = nil
    /// The sides that answered.
    public var mode: SearchMode = .lexical
    /// How many files have passage vectors, when the meaning side ran or could have.
    public var semantic: SemanticCoverage? = nil

    enum CodingKeys: String, CodingKey {
        case query, total, totalAtLeast = "total_at_least", hits, matching, words, mode, semantic
    }

    public enum Matching: String, Sendable, Codable {
        case allWords = "all words"
        case mostWords = "most words"
    }
}
