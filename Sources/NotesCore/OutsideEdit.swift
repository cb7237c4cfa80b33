/// A change a refresh noticed that notes did not make: a known file whose bytes are no
/// longer the ones indexed (an editor, a sync client, `git`). The index finds them; the
/// change history records them as the person's (docs/ARCHITECTURE.md, "Outside edits").
public struct OutsideEdit: Sendable, Hashable {
    /// The file's workspace-relative path.
    public let path: String
    /// The digest the index held before (its first 16 hex digits are that version), nil
    /// when it held no bytes.
    public let before: String?
    /// The version the refresh read (16 hex digits).
    public let version: String
    /// The file's mtime (seconds) when it was read.
    public let mtime: Double

    public init(path: String, before: String?, version: String, mtime: Double) {
        self.path = path
        self.before = before
        self.version = version
        self.mtime = mtime
    }
}
