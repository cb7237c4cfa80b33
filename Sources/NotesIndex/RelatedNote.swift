import Foundation
import GRDB
import NotesCore

/// A note found near another in meaning (``NoteIndex/related(to:limit:hideProtected:)``).
public struct RelatedNote: Sendable, Codable {
    public var path: String
    public var title: String
    /// Cosine similarity of the two notes' mean passage vectors (1 = the same meaning).
    public var similarity: Double
}
