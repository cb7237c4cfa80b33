import Foundation
import NotesCore

/// One file found by a search (docs/spec.md §4.2).
public struct SearchHit: Sendable, Codable {
    public var path: String
    public var title: String
    public var kind: DocumentKind
    /// Relevance relative to the best hit of the same answer: 1 for the best, smaller for
    /// the rest (the ratio of their ranking keys: weighted BM25, times the share of the
    /// words matched for a plain-words query). Absent when the query has no words to rank by.
    public var score: Double?
    /// The file's version (docs/spec.md §6.1).
    public var version: String
    /// Effective provenance (docs/spec.md §3.1).
    public var provenance: Provenance
    public var size: Int
    /// Up to 3 snippets from the best sections.
    public var snippets: [Snippet]
    /// For a plain-words query, the words none of the hit's best sections hold (absent when
    /// they hold every word).
    public var missing: [String]? = nil
    /// What found the file when the search ran by meaning too (absent for words alone).
    public var matchedBy: MatchedBy? = nil

    public enum MatchedBy: String, Sendable, Codable {
        /// Its words only.
        case words
        /// A passage near the query in meaning, without the words.
        case meaning
        /// Both.
        case both
    }

    enum CodingKeys: String, CodingKey {
        case path, title, kind, score, version, provenance, size, snippets, missing
        case matchedBy = "matched_by"
    }
}
