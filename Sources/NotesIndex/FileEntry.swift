import Foundation
import GRDB
import NotesCore

/// One file as `list` shows it (docs/spec.md §5).
public struct FileEntry: Sendable, Codable, Equatable {
    public var path: String
    public var kind: DocumentKind
    public var format: FileFormat
    public var size: Int
    public var title: String
    /// Effective `last_modified_at`.
    public var modified: String
    public var version: String
    public var provenance: Provenance
    /// Whether the file's text is in the search index.
    public var indexed: Bool
}
