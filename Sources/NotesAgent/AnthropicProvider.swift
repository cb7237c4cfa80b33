import Foundation
import NotesNetwork
import NotesTools

/// The Anthropic Messages API with tool use, streamed (`POST {base}/v1/messages`,
/// `stream: true`). The key is sent as `x-api-key` and kept in memory only.
///
/// Related documentation: https://docs.anthropic.com/en/api/messages-streaming
public struct AnthropicProvider: ModelProvider {
    public let name = "anthropic"
    public let baseURL: String
    let apiKey: String
    let exchange: StreamingExchange

    public static let defaultBaseURL = "https://api.anthropic.com"
    static let apiVersion = "2023-06-01"

    public init(
        apiKey: String, baseURL: String?, client: HTTPClient = HTTPClient(),
        idleTimeout: Double = 120
    ) {
        self.apiKey = apiKey
        var base = baseURL ?? Self.defaultBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.exchange = StreamingExchange(client: client, idleTimeout: idleTimeout)
    }

    /// The request body (also what the tests check).
    static func body(_ request: ModelRequest) -> JSONValue {
        var messages: [JSONValue] = []
        for message in request.messages {
            let blocks: [JSONValue] = message.content.compactMap { block in
                switch block {
                case .text(let text):
                    return text.isEmpty
                        ? nil : .object(["type": .string("text"), "text": .string(text)])
                case .toolUse(let id, let name, let input):
                    return .object([
                        "type": .string("tool_use"), "id": .string(id), "name": .string(name),
                        "input": input,
                    ])
                case .toolResult(let id, let content, let isError):
                    var result: [String: JSONValue] = [
                        "type": .string("tool_result"), "tool_use_id": .string(id),
                        "content": .string(content),
                    ]
                    if isError { result["is_error"] = .bool(true) }
                    return .object(result)
                }
            }
            guard !blocks.isEmpty else { continue }
            messages.append(
                .object(["role": .string(message.role.rawValue), "content": .array(blocks)]))
        }
        let tools: [JSONValue] = request.tools.map { tool in
            .object([
                "name": .string(tool.name), "description": .string(tool.description),
                "input_schema": tool.inputSchema,
            ])
        }
        return .object([
            "model": .string(request.model),
            "max_tokens": .int(request.maxOutputTokens),
            "system": .string(request.system),
            "messages": .array(messages),
            "tools": .array(tools),
            "stream": .bool(true),
        ])
    }

    public func complete(
        _ request: ModelRequest, cancellation: Cancellation, onText: (String) -> Void
    ) throws(ProviderFailure) -> ModelReply {
        let body = Data(Self.body(request).jsonText.utf8)
        var assembler = Assembler()
        try exchange.post(
            url: baseURL + "/v1/messages",
            headers: [("x-api-key", apiKey), ("anthropic-version", Self.apiVersion)],
            body: body, cancellation: cancellation
        ) { event throws(ProviderFailure) in
            if let text = try assembler.take(event) { onText(text) }
        }
        return try assembler.reply()
    }

    /// Builds the reply from the stream's events: `message_start`, `content_block_start`,
    /// `content_block_delta` (text or partial tool-call JSON), `message_delta` (stop reason,
    /// output tokens), `message_stop`, and `error`.
    struct Assembler {
        enum Block {
            case text(String)
            case tool(id: String, name: String, json: String)
        }
        var blocks: [Int: Block] = [:]
        var usage = TokenUsage()
        var stopReason: String?
        var stopped = false

        /// Takes one event; returns text to show, if any.
        mutating func take(_ event: ServerSentEvent) throws(ProviderFailure) -> String? {
            guard let data = try? JSONValue.parse(Data(event.data.utf8)) else {
                throw .transient(
                    status: nil, message: "the stream sent an unreadable event", retryAfter: nil)
            }
            let type = data["type"]?.stringValue ?? event.event
            switch type {
            case "message_start":
                let u = data["message"]?["usage"]
                usage.input =
                    (u?["input_tokens"]?.intValue ?? 0)
                    + (u?["cache_creation_input_tokens"]?.intValue ?? 0)
                    + (u?["cache_read_input_tokens"]?.intValue ?? 0)
                usage.output = u?["output_tokens"]?.intValue ?? 0
            case "content_block_start":
                guard let index = data["index"]?.intValue, let block = data["content_block"] else {
                    return nil
                }
                if block["type"]?.stringValue == "tool_use" {
                    blocks[index] = .tool(
                        id: block["id"]?.stringValue ?? "call_\(index)",
                        name: block["name"]?.stringValue ?? "", json: "")
                } else if block["type"]?.stringValue == "text" {
                    let text = block["text"]?.stringValue ?? ""
                    blocks[index] = .text(text)
                    return text.isEmpty ? nil : text
                }
            case "content_block_delta":
                guard let index = data["index"]?.intValue, let delta = data["delta"] else {
                    return nil
                }
                switch (delta["type"]?.stringValue, blocks[index]) {
                case ("text_delta", .text(let text)?):
                    let piece = delta["text"]?.stringValue ?? ""
                    blocks[index] = .text(text + piece)
                    return piece
                case ("text_delta", nil):
                    let piece = delta["text"]?.stringValue ?? ""
                    blocks[index] = .text(piece)
                    return piece
                case ("input_json_delta", .tool(let id, let name, let json)?):
                    blocks[index] = .tool(
                        id: id, name: name, json: json + (delta["partial_json"]?.stringValue ?? ""))
                default:
                    break
                }
            case "message_delta":
                if let reason = data["delta"]?["stop_reason"]?.stringValue { stopReason = reason }
                if let output = data["usage"]?["output_tokens"]?.intValue { usage.output = output }
                if let input = data["usage"]?["input_tokens"]?.intValue, input > usage.input {
                    usage.input = input
                }
            case "message_stop":
                stopped = true
            case "error":
                let kind = data["error"]?["type"]?.stringValue ?? "error"
                let message = data["error"]?["message"]?.stringValue ?? kind
                switch kind {
                case "overloaded_error", "rate_limit_error", "api_error", "timeout_error":
                    throw .transient(
                        status: kind == "overloaded_error" ? 529 : nil, message: message,
                        retryAfter: nil)
                case "authentication_error", "permission_error":
                    throw .unauthorized(message)
                default:
                    throw .rejected(status: 400, message: message)
                }
            default:
                break  // ping, and event types added later
            }
            return nil
        }

        func reply() throws(ProviderFailure) -> ModelReply {
            guard stopped || stopReason != nil else {
                throw .transient(
                    status: nil, message: "the answer stopped before it was complete",
                    retryAfter: nil)
            }
            let content: [ContentBlock] = blocks.keys.sorted().compactMap { index in
                switch blocks[index]! {
                case .text(let text): return text.isEmpty ? nil : .text(text)
                case .tool(let id, let name, let json):
                    return .toolUse(id: id, name: name, input: toolInput(json))
                }
            }
            let reason = stopReason ?? "end_turn"
            return ModelReply(
                content: content, stopReason: reason == "stop_sequence" ? "end_turn" : reason,
                usage: usage)
        }
    }
}
