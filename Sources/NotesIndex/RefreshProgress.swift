import NotesCore

/// Progress of a running refresh, for a progress bar.
public struct RefreshProgress: Sendable {
    /// Files read so far out of those that need reading.
    public var done: Int
    public var total: Int
    public var bytes: Int
}
