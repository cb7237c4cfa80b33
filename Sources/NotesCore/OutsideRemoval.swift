/// A known file a refresh found gone that notes did not remove: deleted or moved by the
/// person or another program. The change history records it as the person's, so the agent
/// is told (get_context, file_history, not_found) and the last version can be restored.
public struct OutsideRemoval: Sendable, Hashable {
    /// The file's workspace-relative path.
    public let path: String
    /// The version the index held (16 hex digits).
    public let version: String
    /// Where the same bytes now are, when the refresh found the file moved.
    public let movedTo: String?

    public init(path: String, version: String, movedTo: String? = nil) {
        self.path = path
        self.version = version
        self.movedTo = movedTo
    }
}
