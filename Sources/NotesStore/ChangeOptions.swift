import Foundation
import NotesCore

/// The preconditions and choices of one change.
public struct ChangeOptions: Sendable {
    /// The version the caller read: required from an agent for an existing file; for the
    /// person optional (a script's compare-and-swap).
    public var expectedVersion: String?
    public var onConflict: ConflictChoice
    /// Set by an agent only after the person agreed to lose their edits.
    public var confirmUserEdits: Bool
    /// Compute and return the diff without writing.
    public var dryRun: Bool
    /// Return the diff of the change (always for a dry run; files over 1 MB get none).
    public var includeDiff: Bool

    /// Create only: an existing file is an error (`notes new`, templates).
    public var mustNotExist = false
    /// The text is a template's (nobody's writing) or an accepted proposal's (the agent's):
    /// the agent may replace it later as if it had written it (the person's later edits are
    /// theirs as usual).
    public var templateText = false
    /// Markdown text without front matter keeps the file's front matter (title, tags, the
    /// person's keys, provenance), then is stamped as the author's: `notes write` with a body
    /// only. An agent's whole-file write always does; the person's editor does not (deleting
    /// the block there is deliberate).
    public var keepFrontMatter = false

    public init(
        expectedVersion: String? = nil, onConflict: ConflictChoice = .fail,
        confirmUserEdits: Bool = false, dryRun: Bool = false, includeDiff: Bool = false
    ) {
        self.expectedVersion = expectedVersion
        self.onConflict = onConflict
        self.confirmUserEdits = confirmUserEdits
        self.dryRun = dryRun
        self.includeDiff = includeDiff
    }

    /// Diffs are skipped for files larger than this (they cost time, and nobody reads them).
    static let diffMaxBytes = 1 << 20
}
