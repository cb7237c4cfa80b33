import NotesCore

/// Which sides of the index answer a search (`--mode`).
public enum SearchMode: String, Sendable, Codable, CaseIterable {
    /// By words (FTS5, bm25).
    case lexical
    /// By meaning (passage vectors).
    case semantic
    /// Both, their scores fused (docs/search.md, Fusion).
    case hybrid
}
