import NotesCore

/// Everything the index needs from one file (docs/spec.md §3.2).
public struct ParsedDocument: Sendable {
    public var title: String
    public var tags: [String] = []
    /// Other names of the note (front matter `aliases`), searched as its title is.
    public var aliases: [String] = []
    public var headings: [DocumentHeading] = []
    public var links: [DocumentLink] = []
    public var sections: [DocumentSection] = []
    /// Top-level front-matter values, for `key:value` filters.
    public var metadata: [(key: String, value: FrontMatterValue)] = []
    /// Provenance as the file states it (before ``Provenance/effective(mtimeSeconds:editedOutsideTool:)``).
    public var provenance = Provenance()
    /// Whether the file has well-formed front matter.
    public var hasFrontMatter = false
    public var diagnostics: [Diagnostic] = []

    public init(title: String) { self.title = title }
}
