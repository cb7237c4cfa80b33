/// How a file's bytes are read for the index (docs/spec.md §2 "Indexed kinds").
public enum FileFormat: String, Sendable, Codable {
    /// `.md` / `.markdown`: front matter plus CommonMark.
    case markdown
    /// `.txt`: plain text.
    case text
    /// `Chats/**.json`: an agent conversation.
    case chat
    /// Anything else: listed, not indexed.
    case other

    /// The format of the file at a workspace-relative path.
    public init(path: String) {
        let name = path.lastPathSegment
        guard let dot = name.utf8.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else {
            self = .other
            return
        }
        let ext = name[name.index(after: dot)...].lowercased()
        switch ext {
        case "md", "markdown": self = .markdown
        case "txt": self = .text
        case "json" where DocumentKind(path: path) == .chat: self = .chat
        default: self = .other
        }
    }

    /// Whether files of this format go into the full-text index.
    public var isIndexed: Bool { self != .other }
}
