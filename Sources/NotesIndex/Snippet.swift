import Foundation
import NotesCore

/// A line of a matching section, with its matches marked.
public struct Snippet: Sendable, Codable, Equatable {
    /// The section's heading (or chapter line, or chat "role #n"); "" before the first.
    public var section: String
    /// 1-based line in the file.
    public var line: Int
    /// The text of that line (shortened with "…" around the matches when long).
    public var text: String
    /// Matched ranges in `text` as `[start, end)` offsets in Unicode scalars.
    public var spans: [[Int]]
}
