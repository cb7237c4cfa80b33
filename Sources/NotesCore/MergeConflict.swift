/// A region where both sides of a three-way merge changed the same lines differently.
public struct MergeConflict: Equatable, Sendable, Codable {
    /// First line of the region in the base (1-based; the line before which text was
    /// inserted when the base side is empty).
    public var line: Int
    /// The region's text in the common ancestor.
    public var base: String
    /// The region as the incoming change (the agent's text) has it.
    public var ours: String
    /// The region as the file on disk (the person's text) has it.
    public var theirs: String

    public init(line: Int, base: String, ours: String, theirs: String) {
        self.line = line
        self.base = base
        self.ours = ours
        self.theirs = theirs
    }
}
