import Foundation
import NotesCore

/// The answer to a search.
public struct SearchResults: Sendable, Codable {
    public var query: String
    /// How many files match (hits are the first `limit` of them).
    public var total: Int
    public var hits: [SearchHit]
    /// For a plain-words query: whether every hit holds all the ``words`` or some hits hold
    /// only some of them (absent for a query with operators, which must match exactly).
    public var matching: Matching? = nil
    /// For a plain-words query, the words it ranked by (its common words left out).
    public var words: [String]? = nil
    /// The sides that answered.
    public var mode: SearchMode = .lexical
    /// How many files have passage vectors, when the meaning side ran or could have.
    public var semantic: SemanticCoverage? = nil

    public enum Matching: String, Sendable, Codable {
        case allWords = "all words"
        case mostWords = "most words"
    }
}
