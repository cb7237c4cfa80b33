import Foundation

/// What the index knew after the last walk: the folders' stamps and the files' paths.
public struct KnownLayout: Sendable {
    public var folders: [FolderStamp]
    public var files: [String]

    public init(folders: [FolderStamp], files: [String]) {
        self.folders = folders
        self.files = files
    }
}
