import NotesCore

/// What a change did to a file (one line of the log, docs/spec.md §6.4).
public enum ChangeOperation: String, Codable, Sendable, CaseIterable {
    case create, write, append, edit, delete, move, restore, merge
    /// A proposal the person accepted.
    case accept
    /// A proposal the person rejected (the file is unchanged).
    case reject
    /// A change made outside the tool, noticed by the indexer.
    case external

}

/// One line of `.notes/history/log.jsonl`: who did what to which file, and the versions
/// before and after (their bytes are in the object store).
public struct ChangeRecord: Codable, Sendable, Equatable {
    /// ISO 8601 UTC.
    public var time: String
    public var actor: Actor
    /// The client's name (`cli`, the MCP client's name, `notes-agent`, `editor`).
    public var client: String
    public var operation: ChangeOperation
    public var path: String
    /// The new path of a move.
    public var to: String?
    /// The version replaced; nil when the file was created.
    public var before: String?
    /// The version written; nil when the file was deleted.
    public var after: String?
    /// The proposal accepted, rejected or created.
    public var proposal: String?
    /// For an agent's change to a file with the person's edits pending: the agent's own
    /// text with this change applied (the reference for "lines the person changed"). The
    /// person's lines stay protected across the agent's edits and appends.
    public var agentBase: String?

    public init(
        time: String = Timestamp.format(Timestamp.now()), actor: Actor, client: String,
        operation: ChangeOperation,
        path: String, to: String? = nil, before: String?, after: String?, proposal: String? = nil,
        agentBase: String? = nil
    ) {
        self.time = time
        self.actor = actor
        self.client = client
        self.operation = operation
        self.path = path
        self.to = to
        self.before = before
        self.after = after
        self.proposal = proposal
        self.agentBase = agentBase
    }

    enum CodingKeys: String, CodingKey {
        case time, actor, client, path, to, before, after, proposal
        case operation = "op", agentBase = "agent_base"
    }

    /// The path this record leaves content at (the target of a move).
    public var resultPath: String { to ?? path }
}

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
            time: outsideEditTime(mtime: mtime), actor: .user, client: "outside notes",
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
        if record.actor == .agent || (record.agentBase != nil && record.agentBase == record.after) {
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
