import NotesCore

/// What the log says about one path: its records (following renames), the last version
/// the tool wrote, and who changed it since the agent last wrote it in full.
public struct PathHistory: Sendable {
    /// Records for this path, oldest first (a moved file's records before the move too).
    public var records: [ChangeRecord] = []
    /// The last record that set this path's content (nil: never written by the tool).
    public var last: ChangeRecord?
    /// The last version the agent wrote in full: the merge base and the reference for
    /// "lines the person changed" (docs/spec.md §6.2).
    public var agentBaseline: String?
    /// Whether the person changed the file (through the tool or as a noticed outside edit)
    /// after `agentBaseline` was written.
    public var userChangedSinceBaseline = false
    /// The last version the agent wrote, as written (the person's lines in it included), or
    /// that became the agent's whole (an accepted proposal, a file made from a template):
    /// the base of a three-way merge of the agent's next text (docs/spec.md §6.2).
    public var agentWritten: String?
    /// Who created the file, when the tool saw it happen.
    public var createdBy: Actor?
    public var createdAt: String?

    public init() {}

    /// Effective provenance (docs/spec.md §3.1) of this path's current bytes (`version`): what the
    /// front matter states, corrected by the log. When the bytes are the ones the tool last
    /// wrote, the log's actor and time are the truth (this also covers `.txt`/`.json` files
    /// and unstamped writes, and defeats provenance claimed in an agent's text); when they
    /// differ, the person edited the file outside the tool, at its mtime.
    public func effective(stated: Provenance, version: String, mtime: Double) -> Provenance {
        var result = stated
        if result.createdBy == nil, let by = createdBy {
            result.createdBy = by
            result.createdAt = result.createdAt ?? createdAt
        }
        if let last, last.after != nil {
            if last.after == version {
                result.lastModifiedBy = last.actor
                result.lastModifiedAt = last.time
                return result.effective(mtimeSeconds: mtime)
            }
            var outside = result.effective(mtimeSeconds: mtime, editedOutsideTool: true)
            outside.lastModifiedAt = outsideEditTime(mtime: mtime)
            return outside
        }
        return result.effective(mtimeSeconds: mtime)
    }

    /// When the person's outside edit of this path happened, one answer for the log's
    /// `external` line and for effective provenance before that line is written: the file's
    /// mtime to the second, but not before the path's latest record, so the log stays in
    /// order when a sync tool restores an older mtime. (Not the time the tool noticed: an
    /// edit noticed days later happened when it was saved.)
    public func outsideEditTime(mtime: Double) -> String {
        let saved = mtime.rounded(.down)
        if let latest = records.last?.time, let seconds = Timestamp.parse(latest), seconds > saved {
            return latest
        }
        return Timestamp.format(saved)
    }

    /// The log's `external` line for the person's edit of `path` to `version` (16 hex
    /// digits), which replaced `before` (the indexed version; the log's last one wins);
    /// nil when the log already ends with `version` (the tool wrote it).
    public func outsideEditRecord(
        path: String, replacing before: String?, version: String, mtime: Double
    ) -> ChangeRecord? {
        guard last?.after != version else { return nil }
        return ChangeRecord(
            time: outsideEditTime(mtime: mtime), actor: .user, client: HistoryStore.outsideNotes,
            operation: .external,
            path: path, before: last?.after ?? before.map { String($0.prefix(16)) }, after: version)
    }

    /// Effective provenance of `version` as it will read once its outside edit is logged:
    /// the refresh that notices an edit shows what every later refresh, and a rebuild, will.
    public func effectiveAfterOutsideEdit(
        path: String, stated: Provenance, replacing before: String?, version: String, mtime: Double
    ) -> Provenance {
        guard
            let record = outsideEditRecord(
                path: path, replacing: before, version: version, mtime: mtime)
        else {
            return effective(stated: stated, version: version, mtime: mtime)
        }
        var logged = self
        logged.apply(record)
        return logged.effective(stated: stated, version: version, mtime: mtime)
    }

    /// The version the history last left at `path`, when it left the file there (its last
    /// record wrote it, or moved it there): nil when it deleted or moved the file away, or
    /// never held it. A file gone from disk with such a version was removed outside notes.
    public func versionLeft(at path: String) -> String? {
        guard let last, let version = last.after, last.operation != .delete,
            last.operation != .move || last.to == path
        else { return nil }
        return version
    }

    mutating func apply(_ record: ChangeRecord) {
        records.append(record)
        // Content the tool did not write was there before: someone changed it outside.
        if record.operation != .reject, let before = record.before, before != last?.after {
            userChangedSinceBaseline = true
        }
        switch record.operation {
        case .reject:
            return
        case .delete:
            last = record
            return
        default:
            break
        }
        last = record
        if record.operation == .create || (record.before == nil && createdBy == nil) {
            createdBy = record.actor
            createdAt = record.time
        }
        // An accepted proposal is common to both sides too: the base of the agent's next merge.
        let accepted =
            record.proposal != nil && (record.operation == .accept || record.operation == .merge)
        if record.actor == .agent || accepted
            || (record.agentBase != nil && record.agentBase == record.after)
        {
            agentWritten = record.after
        }
        switch record.actor {
        case .agent:
            if let base = record.agentBase {
                agentBaseline = base
                userChangedSinceBaseline = base != record.after
            } else if !userChangedSinceBaseline || record.operation == .accept {
                agentBaseline = record.after
                userChangedSinceBaseline = false
            }
        case .user:
            if let base = record.agentBase {
                // Text nobody wrote (a file made from a template): the agent may replace it.
                agentBaseline = base
                userChangedSinceBaseline = base != record.after
            } else if record.operation != .move {
                userChangedSinceBaseline = true
            }
        }
    }
}
