import Foundation
import GRDB
import NotesCore

/// The answer to `list`.
public struct Listing: Sendable, Codable {
    public var folder: String
    public var folders: [FolderEntry]
    public var files: [FileEntry]
}
