import Foundation
import GRDB
import NotesCore

/// How far embedding has got: sections and files with current vectors.
public struct SemanticCoverage: Sendable, Codable, Equatable {
    /// Indexed files with vectors for every section.
    public var embeddedFiles: Int
    /// Indexed files with text (front matter alone or an empty file has nothing to embed).
    public var files: Int
    /// The model the vectors came from (nil: none yet).
    public var model: String?
    /// Passages with vectors.
    public var passages: Int = 0

    public var isComplete: Bool { embeddedFiles >= files }

    enum CodingKeys: String, CodingKey {
        case embeddedFiles = "embedded_files", files, model, passages
    }
}
