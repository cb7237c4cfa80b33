import NotesCore

/// A file the walk says must be looked at.
struct PendingFile: Sendable {
    var file: ScannedFile
    var known: KnownFile?
    /// Read again only because the size limit changed (``IndexedSizeLimit``): its bytes are
    /// not known to have changed, so reading them is no outside edit.
    var sizeLimitChanged = false
}
