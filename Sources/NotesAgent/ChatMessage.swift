import NotesTools

/// One piece of a message: text, a tool call the model made, or the result sent back.
/// Stored in `Chats/<id>.json` in the Anthropic block shape (which the chat indexer reads);
/// each provider translates to its own wire format.
public enum ContentBlock: Sendable, Equatable, Codable {
    case text(String)
    case toolUse(id: String, name: String, input: JSONValue)
    case toolResult(toolUseID: String, content: String, isError: Bool)

    enum CodingKeys: String, CodingKey {
        case type, text, id, name, input, content
        case toolUseID = "tool_use_id", isError = "is_error"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "text": self = .text(try c.decode(String.self, forKey: .text))
        case "tool_use":
            self = .toolUse(
                id: try c.decode(String.self, forKey: .id),
                name: try c.decode(String.self, forKey: .name),
                input: try c.decodeIfPresent(JSONValue.self, forKey: .input) ?? .object([:]))
        case "tool_result":
            self = .toolResult(
                toolUseID: try c.decode(String.self, forKey: .toolUseID),
                content: try c.decode(String.self, forKey: .content),
                isError: try c.decodeIfPresent(Bool.self, forKey: .isError) ?? false)
        case let other:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "unknown content block type \(other)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .text(let text):
            try c.encode("text", forKey: .type)
            try c.encode(text, forKey: .text)
        case .toolUse(let id, let name, let input):
            try c.encode("tool_use", forKey: .type)
            try c.encode(id, forKey: .id)
            try c.encode(name, forKey: .name)
            try c.encode(input, forKey: .input)
        case .toolResult(let id, let content, let isError):
            try c.encode("tool_result", forKey: .type)
            try c.encode(id, forKey: .toolUseID)
            try c.encode(content, forKey: .content)
            if isError { try c.encode(true, forKey: .isError) }
        }
    }
}

/// One message of the conversation. Tool results travel in a `user` message, as in the
/// Anthropic API.
public struct ChatMessage: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable { case user, assistant }

    public var role: Role
    public var content: [ContentBlock]

    public init(role: Role, content: [ContentBlock]) {
        self.role = role
        self.content = content
    }

    /// The message's text blocks joined.
    public var text: String {
        content.compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
    }

    /// The tool calls of an assistant message, in order.
    public var toolCalls: [ToolCall] {
        content.compactMap {
            if case .toolUse(let id, let name, let input) = $0 {
                ToolCall(id: id, name: name, input: input)
            } else {
                nil
            }
        }
    }
}

/// A tool call the model asked for.
public struct ToolCall: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var input: JSONValue

    public init(id: String, name: String, input: JSONValue) {
        self.id = id
        self.name = name
        self.input = input
    }
}
