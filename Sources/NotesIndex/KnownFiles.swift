import NotesCore

/// What the index knew before this refresh: its `files` rows, as a refresh compares them
/// with the walk, and the folders' stamps (nil when there are none valid).
struct KnownFiles: Sendable {
    var files: [KnownFile]
    var folders: [FolderStamp]?
    /// Whether `files` carry their digests (else ``NoteIndex/withDigests(_:_:)`` reads them).
    var hasDigests: Bool
    var hiddenFlagsCurrent: Bool
    /// The database's layout token when these were read (``LayoutSnapshot``).
    var layoutToken: String?
    /// Whether these came from the layout snapshot rather than the database.
    var fromSnapshot = false
    /// The size limit the files were last read under (``IndexedSizeLimit``), nil when the
    /// index records none.
    var sizeLimit: Int?

    /// The files by path (a path has one row at most).
    var byPath: [String: KnownFile] {
        Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
