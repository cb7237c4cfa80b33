import NotesCore

/// A link found in a document: `[text](target)` or `[[target|alias]]`.
public struct DocumentLink: Hashable, Sendable {
    public enum Kind: String, Sendable { case markdown, wiki }
    public var kind: Kind
    public var target: String
    public var text: String
    public var line: Int
}
