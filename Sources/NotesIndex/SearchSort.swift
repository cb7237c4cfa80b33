import NotesCore

/// Result order (`--sort`).
public enum SearchSort: String, Sendable, CaseIterable {
    case relevance, modified, created, path, title
}
