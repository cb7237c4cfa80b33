import NotesCore

/// `key:value` on any front-matter key (case-insensitive; list values match any item).
public struct MetadataFilter: Sendable, Equatable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}
