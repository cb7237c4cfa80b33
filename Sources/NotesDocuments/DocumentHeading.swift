import NotesCore

/// A heading of a Markdown document.
public struct DocumentHeading: Hashable, Sendable {
    public var level: Int
    public var text: String
    public var line: Int
}
