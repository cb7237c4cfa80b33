import Foundation
import NotesCore

/// The outcome of a change.
public struct ChangeResult: Codable, Sendable, Equatable {
    public var path: String
    /// The file's version now (nil after a delete, or when only a proposal was stored).
    public var version: String?
    public var previousVersion: String?
    public var created = false
    /// The text written is a three-way merge with the person's edits.
    public var merged = false
    /// False when the file already held exactly these bytes (nothing written or logged).
    public var changed = true
    /// The proposal stored instead of writing.
    public var proposal: String?
    /// What the change did (or would do, for a dry run), as a unified diff.
    public var diff: String?
    /// The old path of a move.
    public var from: String?
    /// After a delete: the version `restore` brings back.
    public var restorableVersion: String?
    public var dryRun = false
    /// Things the caller should know (front matter left unstamped, a sync conflict copy…).
    public var warnings: [String] = []
    /// For text appended to a journal page as an entry: the entry's heading (`## 10:30 — agent`).
    public var entry: String?

    public init(path: String) { self.path = path }

    enum CodingKeys: String, CodingKey {
        case path, version, created, merged, changed, proposal, diff, from, warnings, entry
        case previousVersion = "previous_version", restorableVersion = "restorable_version",
            dryRun = "dry_run"
    }
}
