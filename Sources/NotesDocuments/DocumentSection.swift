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
