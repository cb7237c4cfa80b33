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
    /// For a windowed read: the one line returned was longer than the window and only its
    /// first bytes are here (search finds text anywhere in it).
    public var lineCut: Bool? = nil
    /// For a read that accepted text which is not valid UTF-8 (``Workspace/read(_:offset:limit:window:lossy:provenance:)``):
    /// the first such line; its invalid bytes are U+FFFD in `content`, as the index has them.
    public var invalidUTF8Line: Int? = nil

    enum CodingKeys: String, CodingKey {
        case path, content, version, provenance, size, offset, lines, truncated
        case totalLines = "total_lines", nextOffset = "next_offset", lineCut = "line_cut",
            invalidUTF8Line = "invalid_utf8_line"
    }
}
