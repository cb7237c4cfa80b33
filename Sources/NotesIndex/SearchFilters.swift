import NotesCore

/// Field filters (docs/spec.md §4.1); each is also a CLI flag.
public struct SearchFilters: Sendable, Equatable {
    /// `in:DIR`: path prefixes (separator-aware).
    public var folders: [String] = []
    /// `path:GLOB`.
    public var pathGlobs: [String] = []
    /// `tag:T` (a tag or one below it, `tag:a` matches `a/b`).
    public var tags: [String] = []
    /// `by:agent|user`: effective `created_by`.
    public var createdBy: Actor?
    /// `edited-by:agent|user`: effective `last_modified_by`.
    public var editedBy: Actor?
    /// `kind:…` (several are ORed).
    public var kinds: [DocumentKind] = []
    /// `created:…`.
    public var created: [DateFilter] = []
    /// `modified:…`.
    public var modified: [DateFilter] = []
    /// Any other front-matter `key:value`.
    public var metadata: [MetadataFilter] = []
    /// Leaves out paths the workspace protects from agents (docs/spec.md §10): set for every search
    /// an agent makes, so a protected file never shows up in its hits.
    public var hideProtected = false

    public init() {}

    public var isEmpty: Bool { self == SearchFilters() }

    /// Whether any filter narrows the files (leaving out protected paths does not count:
    /// it is a rule of who searches, not part of what was asked).
    public var selectsFiles: Bool {
        var asked = self
        asked.hideProtected = false
        return !asked.isEmpty
    }
}
