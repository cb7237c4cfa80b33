import Foundation
import GRDB
import NotesCore

/// The notes nearest one note in meaning.
public struct RelatedNotes: Sendable, Codable {
    public var path: String
    public var related: [RelatedNote]
    /// How many files have vectors: a file without them cannot be found.
    public var semantic: SemanticCoverage
}
