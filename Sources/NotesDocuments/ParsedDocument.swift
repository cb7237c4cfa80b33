import NotesCore

/// One searchable part of a document: a Markdown section under a heading, a block of a
/// plain-text book (under its chapter line), or one chat message (docs/spec.md §3.2).
public struct DocumentSection: Hashable, Sendable {
    /// The heading, chapter line or "role #n" that titles the section ("" for a preamble).
    public var heading: String
    /// Heading level (1–6) for Markdown, 0 otherwise.
    public var level: Int
    /// 1-based line in the file where the section starts.
    public var line: Int
    /// The section's plain text. When `lineAligned`, line k of the text (0-based) is line
    /// `line + k` of the file, so a match can be mapped back to its line.
    public var text: String
    /// Whether ``text`` keeps the file's line structure.
    public var lineAligned: Bool
    /// Whether this is a later chunk of a long section (its heading is not on its first line,
    /// so the heading is searchable only through the first chunk).
    public var isContinuation: Bool

    public init(
        heading: String, level: Int, line: Int, text: String, lineAligned: Bool,
        isContinuation: Bool = false
    ) {
        self.heading = heading
        self.level = level
        self.line = line
        self.text = text
        self.lineAligned = lineAligned
        self.isContinuation = isContinuation
    }
}

/// A heading of a Markdown document.
public struct DocumentHeading: Hashable, Sendable {
    public var level: Int
    public var text: String
    public var line: Int
}

/// A link found in a document: `[text](target)` or `[[target|alias]]`.
public struct DocumentLink: Hashable, Sendable {
    public enum Kind: String, Sendable { case markdown, wiki }
    public var kind: Kind
    public var target: String
    public var text: String
    public var line: Int
}

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
