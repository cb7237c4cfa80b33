import NotesCore

/// A file the walk says must be looked at.
struct PendingFile: Sendable {
    var file: ScannedFile
    var known: KnownFile?
}
