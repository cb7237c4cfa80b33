/// A file read for a person or an agent (docs/spec.md §5): its text (or a line range of it), its
/// version, effective provenance and size.
public struct ReadResult: Sendable, Codable {
    public var path: String
    /// The requested lines (the whole file by default).
    public var content: String
    public var version: String
    public var provenance: Provenance
    public var size: Int
    /// Lines in the whole file, so an agent can page with `offset`/`limit`.
    public var totalLines: Int
    /// First line returned (1-based).
    public var offset: Int
    /// Lines returned.
    public var lines: Int
    /// For a windowed read (an agent's): whether lines follow the ones returned.
    public var truncated: Bool?
    /// For a windowed read that stopped early: the `offset` of the next page.
    public var nextOffset: Int?
    /// For a windowed read: the one line returned was longer than the window and only part
    /// of it is here; the page after it continues that line at `next_column`.
    public var lineCut: Bool? = nil
    /// Where in line `offset` the content starts, in UTF-8 bytes (0-based): set when the
    /// page continues a line cut by the page before.
    public var column: Int? = nil
    /// With `line_cut`: where the rest of line `next_offset` starts, in UTF-8 bytes; pass it
    /// as `column` with `next_offset` as `offset`. Following `next_offset` and
    /// `next_column` page by page gives back the file's bytes exactly.
    public var nextColumn: Int? = nil
    /// For a read that accepted text which is not valid UTF-8 (``Workspace/read(_:offset:limit:window:lossy:provenance:)``):
    /// the first such line; its invalid bytes are U+FFFD in `content`, as the index has them.
    public var invalidUTF8Line: Int? = nil

    enum CodingKeys: String, CodingKey {
        case path, content, version, provenance, size, offset, lines, truncated
        case totalLines = "total_lines", nextOffset = "next_offset", lineCut = "line_cut",
            invalidUTF8Line = "invalid_utf8_line", column, nextColumn = "next_column"
    }
}
