import NotesCore

/// What the change history says of a file no longer at its path: moved (through notes or
/// found moved), to where it now is, or deleted with its last version kept. One reading of
/// the log for the agent's `not_found` and the person's `notes read`.
public enum GoneFile: Sendable {
    /// Moved by `record`; `to` is where the file is now (later moves followed).
    case moved(to: String, record: ChangeRecord)
    /// Deleted by `record`; `version` is kept in the history and can be restored.
    case deleted(version: String, record: ChangeRecord)
}

extension HistoryStore {
    /// Moves followed at most this many times to find where a file is now.
    static let movesFollowed = 8

    /// Where the file last at `path` went, by the log (nil: it says nothing of a move or a
    /// delete, or the file it moved to is gone too, or the deleted version is not kept intact).
    public func whereabouts(of path: String) -> GoneFile? {
        guard let last = history(of: path).records.last else { return nil }
        if last.operation == .move, let to = last.to, to != path {
            var current = to
            var hops = 0
            while !FileSystem.exists(workspace.absolutePath(current)), hops < Self.movesFollowed,
                let next = history(of: current).records.last,
                next.operation == .move, let further = next.to, further != current
            {
                current = further
                hops += 1
            }
            if FileSystem.exists(workspace.absolutePath(current)) {
                return .moved(to: current, record: last)
            }
        }
        if last.after == nil, last.operation != .move, let version = last.before,
            object(version) != nil
        {
            return .deleted(version: version, record: last)
        }
        return nil
    }
}
