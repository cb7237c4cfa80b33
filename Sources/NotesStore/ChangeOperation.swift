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
