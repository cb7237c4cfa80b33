import Foundation
import GRDB
import NotesCore

/// What `notes status` reports about the index.
public struct IndexStatus: Sendable, Codable {
    public var files: Int
    public var indexed: Int
    public var sections: Int
    public var byKind: [String: Int]
    public var diagnostics: [Diagnostic]
    public var databaseBytes: Int
    public var indexDirectory: String

    enum CodingKeys: String, CodingKey {
        case files, indexed, sections, diagnostics
        case byKind = "by_kind", databaseBytes = "database_bytes", indexDirectory =
            "index_directory"
    }
}
