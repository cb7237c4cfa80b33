/// What a document is for, decided by where it lives (docs/spec.md §2). Used by `kind:` filters.
public enum DocumentKind: String, Sendable, Codable, CaseIterable {
    case research, journal, chat, context, note

    /// The kind of the file at a workspace-relative path.
    public init(path: String) {
        let slash = path.utf8.firstIndex(of: UInt8(ascii: "/"))
        let first = slash.map { path[..<$0].lowercased() } ?? ""
        let isNested = slash != nil
        if !isNested && path.lowercased() == "context.md" {
            self = .context
        } else if isNested && first == "research" {
            self = .research
        } else if isNested && first == "journal" {
            self = .journal
        } else if isNested && first == "chats" {
            self = .chat
        } else {
            self = .note
        }
    }
}

extension String {
    /// What follows the last `/` (the whole string when there is none), found on bytes:
    /// indexing asks this of every file, and `split(separator:)` built every component.
    public var lastPathSegment: Substring {
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return self[...] }
        return self[utf8.index(after: slash)...]
    }
}
