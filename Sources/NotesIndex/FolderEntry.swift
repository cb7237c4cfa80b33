import Foundation
import GRDB
import NotesCore

/// A sub-folder in a non-recursive listing.
public struct FolderEntry: Sendable, Codable, Equatable {
    public var path: String
    /// Files anywhere below it.
    public var files: Int
}
