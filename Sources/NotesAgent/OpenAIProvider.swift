import Foundation
import NotesNetwork
import NotesTools

/// OpenAI-compatible chat completions with tool calls, streamed (`POST
/// {base}/chat/completions`, `stream: true`): the OpenAI API, and local servers such as
/// llama.cpp's `llama-server` or Ollama (`http://127.0.0.1:11434/v1`), which need no key.
///
/// Related documentation: https://platform.openai.com/docs/api-reference/chat/create
public struct OpenAIProvider: ModelProvider {
    public let name = "openai"
    public let baseURL: String
    let apiKey: String?
    let exchange: StreamingExchange

    public static let defaultBaseURL = "https://api.openai.com/v1"

    public init(
        apiKey: String?, baseURL: String?, client: HTTPClient = HTTPClient(),
        idleTimeout: Double = 120
    ) {
        self.apiKey = apiKey
        var base = baseURL ?? Self.defaultBaseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.exchange = StreamingExchange(client: client, idleTimeout: idleTimeout)
    }

    /// The request body: the system prompt as the first message, tool calls as
    /// `tool_calls` with JSON-text arguments, each tool result as a `tool` message.
    /// OpenAI's own API wants `max_completion_tokens` (its reasoning models refuse
    /// `max_tokens`); compatible local servers know `max_tokens`.
    static func body(_ request: ModelRequest, official: Bool = false) -> JSONValue {
        var messages: [JSONValue] = [
            .object(["role": .string("system"), "content": .string(request.system)])
        ]
        for message in request.messages {
            switch message.role {
            case .assistant:
                let calls: [JSONValue] = message.toolCalls.map { call in
                    .object([
                        "id": .string(call.id), "type": .string("function"),
                        "function": .object([
                            "name": .string(call.name), "arguments": .string(call.input.jsonText),
                        ]),
                    ])
                }
                var object: [String: JSONValue] = [
                    "role": .string("assistant"),
                    "content": message.text.isEmpty ? .null : .string(message.text),
                ]
                if !calls.isEmpty { object["tool_calls"] = .array(calls) }
                messages.append(.object(object))
            case .user:
                for block in message.content {
                    if case .toolResult(let id, let content, _) = block {
                        messages.append(
                            .object([
                                "role": .string("tool"), "tool_call_id": .string(id),
                                "content": .string(content),
                            ]))
                    }
                }
                if !message.text.isEmpty {
                    messages.append(
                        .object(["role": .string("user"), "content": .string(message.text)]))
                }
            }
        }
        let tools: [JSONValue] = request.tools.map { tool in
            .object([
                "type": .string("function"),
                "function": .object([
                    "name": .string(tool.name), "description": .string(tool.description),
                    "parameters": tool.inputSchema,
                ]),
            ])
        }
        return .object([
            "model": .string(request.model),
            official ? "max_completion_tokens" : "max_tokens": .int(request.maxOutputTokens),
            "messages": .array(messages),
            "tools": .array(tools),
            "stream": .bool(true),
            "stream_options": .object(["include_usage": .bool(true)]),
        ])
    }

    public func complete(
        _ request: ModelRequest, cancellation: Cancellation, onText: (String) -> Void
    ) throws(ProviderFailure) -> ModelReply {
        let body = Data(
            Self.body(request, official: URLParts(baseURL).host == "api.openai.com").jsonText.utf8)
        var assembler = Assembler()
        let headers: [(name: String, value: String)] =
            apiKey.map { [("authorization", "Bearer \($0)")] } ?? []
        try exchange.post(
            url: baseURL + "/chat/completions", headers: headers, body: body,
            cancellation: cancellation
        ) { event throws(ProviderFailure) in
            if let text = try assembler.take(event) { onText(text) }
        }
        return try assembler.reply()
    }

    /// Builds the reply from `chat.completion.chunk` events: `delta.content`,
    /// `delta.tool_calls` (by index, arguments in pieces), `finish_reason`, `usage`, `[DONE]`.
    struct Assembler {
        var text = ""
        var calls: [Int: (id: String, name: String, arguments: String)] = [:]
        var usage = TokenUsage()
        var finishReason: String?
        var done = false

        mutating func take(_ event: ServerSentEvent) throws(ProviderFailure) -> String? {
            if event.data == "[DONE]" {
                done = true
                return nil
            }
            guard let data = try? JSONValue.parse(Data(event.data.utf8)) else {
                throw .transient(
                    status: nil, message: "the stream sent an unreadable chunk", retryAfter: nil)
            }
            if let error = data["error"] {
                let message = error["message"]?.stringValue ?? "the API reported an error"
                throw .transient(status: nil, message: message, retryAfter: nil)
            }
            if let u = data["usage"], case .object = u {
                usage = TokenUsage(
                    input: u["prompt_tokens"]?.intValue ?? usage.input,
                    output: u["completion_tokens"]?.intValue ?? usage.output)
            }
            guard case .array(let choices)? = data["choices"], let choice = choices.first else {
                return nil
            }
            if let reason = choice["finish_reason"]?.stringValue { finishReason = reason }
            guard let delta = choice["delta"] else { return nil }
            if case .array(let toolCalls)? = delta["tool_calls"] {
                for (position, call) in toolCalls.enumerated() {
                    let index = call["index"]?.intValue ?? position
                    var entry = calls[index] ?? (id: "", name: "", arguments: "")
                    if let id = call["id"]?.stringValue, !id.isEmpty { entry.id = id }
                    if let name = call["function"]?["name"]?.stringValue { entry.name += name }
                    if let arguments = call["function"]?["arguments"]?.stringValue {
                        entry.arguments += arguments
                    }
                    calls[index] = entry
                }
            }
            if let piece = delta["content"]?.stringValue, !piece.isEmpty {
                text += piece
                return piece
            }
            return nil
        }

        func reply() throws(ProviderFailure) -> ModelReply {
            guard done || finishReason != nil else {
                throw .transient(
                    status: nil, message: "the answer stopped before it was complete",
                    retryAfter: nil)
            }
            var content: [ContentBlock] = text.isEmpty ? [] : [.text(text)]
            for index in calls.keys.sorted() {
                let call = calls[index]!
                content.append(
                    .toolUse(
                        id: call.id.isEmpty ? "call_\(index)" : call.id, name: call.name,
                        input: toolInput(call.arguments)))
            }
            let reason: String
            switch finishReason {
            case "tool_calls", "function_call": reason = "tool_use"
            case "length": reason = "max_tokens"
            default: reason = calls.isEmpty ? "end_turn" : "tool_use"
            }
            return ModelReply(content: content, stopReason: reason, usage: usage)
        }
    }
}
