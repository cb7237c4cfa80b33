import Foundation
import NotesNetwork
import NotesTools

/// One request to a model: the conversation so far and the tools it may call.
public struct ModelRequest: Sendable {
    public var model: String
    public var system: String
    public var messages: [ChatMessage]
    public var tools: [ToolDefinition]
    public var maxOutputTokens: Int

    public init(
        model: String, system: String, messages: [ChatMessage], tools: [ToolDefinition],
        maxOutputTokens: Int
    ) {
        self.model = model
        self.system = system
        self.messages = messages
        self.tools = tools
        self.maxOutputTokens = maxOutputTokens
    }
}

/// A model's complete answer to one request.
public struct ModelReply: Sendable, Equatable {
    /// Text and tool calls, in the order the model produced them.
    public var content: [ContentBlock]
    /// `end_turn`, `tool_use`, `max_tokens` (normalised across providers).
    public var stopReason: String
    public var usage: TokenUsage

    public init(content: [ContentBlock], stopReason: String, usage: TokenUsage) {
        self.content = content
        self.stopReason = stopReason
        self.usage = usage
    }
}

/// Why a request got no answer, sorted by what the loop does next.
public enum ProviderFailure: Error, Sendable, Equatable {
    /// No connection to the API (refused, DNS): stop, keep the checkpoint.
    case offline(String)
    /// Worth trying again: 429, 5xx, overloaded, a broken stream. `retryAfter` from the server.
    case transient(status: Int?, message: String, retryAfter: Double?)
    /// The key is missing or refused (401, 403): stop, keep the checkpoint.
    case unauthorized(String)
    /// The API rejected the request itself (400, 404, 422): trying again would not help.
    case rejected(status: Int, message: String)
    case cancelled

    public var message: String {
        switch self {
        case .offline(let m), .unauthorized(let m): m
        case .transient(let status, let m, _): status.map { "\($0): \(m)" } ?? m
        case .rejected(let status, let m): "\(status): \(m)"
        case .cancelled: "cancelled"
        }
    }
}

/// A chat API with tool use and streaming. Implementations translate ``ChatMessage`` to
/// their wire format and back; the loop above them is the same for all.
public protocol ModelProvider: Sendable {
    /// `anthropic` or `openai`.
    var name: String { get }
    /// The endpoint's base URL (for messages; never the key).
    var baseURL: String { get }
    /// Sends `request` and streams the answer: `onText` gets each piece of text as it
    /// arrives. Returns the whole answer once the stream ends.
    func complete(_ request: ModelRequest, cancellation: Cancellation, onText: (String) -> Void)
        throws(ProviderFailure) -> ModelReply
}

/// The HTTP exchange and error mapping both providers share.
struct StreamingExchange {
    let client: HTTPClient
    let idleTimeout: Double

    /// POSTs `body` and feeds the SSE events of a 200 answer to `onEvent`; any other
    /// status becomes a ``ProviderFailure`` with the API's own message.
    func post(
        url: String, headers: [(name: String, value: String)], body: Data,
        cancellation: Cancellation,
        onEvent: (ServerSentEvent) throws(ProviderFailure) -> Void
    ) throws(ProviderFailure) {
        var request = HTTPRequest(
            url: url, method: "POST",
            headers: headers + [
                ("content-type", "application/json"), ("accept", "text/event-stream"),
            ], body: Array(body))
        request.totalTimeout = 0
        request.idleTimeout = idleTimeout
        request.connectTimeout = 15
        request.maxResponseBytes = 64 << 20
        request.acceptCompressed = false
        var parser = ServerSentEventParser()
        var errorBody: [UInt8] = []
        var streamFailure: ProviderFailure?
        let response: HTTPResponse
        do {
            response = try client.perform(request, cancellation: cancellation) { status, _, chunk in
                guard status == 200 else {
                    if errorBody.count < 1 << 20 { errorBody += chunk }
                    return .proceed
                }
                do throws(ProviderFailure) {
                    for event in parser.feed(chunk) { try onEvent(event) }
                } catch {
                    streamFailure = error
                    return .stop
                }
                return .proceed
            }
        } catch {
            switch error {
            case .offline(let why): throw .offline(why)
            case .cancelled: throw .cancelled
            case .timeout(let why), .connectionLost(let why):
                throw .transient(status: nil, message: why, retryAfter: nil)
            case .tooLarge:
                throw .transient(
                    status: nil, message: "the answer was larger than 64 MB", retryAfter: nil)
            case .failed(let why): throw .rejected(status: 0, message: why)
            }
        }
        if let streamFailure { throw streamFailure }
        guard response.status == 200 else {
            throw Self.failure(
                status: response.status, body: errorBody, retryAfter: response.retryAfter)
        }
        for event in parser.finish() { try onEvent(event) }
    }

    /// Maps an HTTP error status and the API's error body to what the loop does next.
    static func failure(status: Int, body: [UInt8], retryAfter: Double?) -> ProviderFailure {
        let message = apiMessage(body) ?? "HTTP \(status)"
        switch status {
        case 401, 403: return .unauthorized(message)
        case 408, 409, 425, 429, 500...599:
            return .transient(status: status, message: message, retryAfter: retryAfter)
        default: return .rejected(status: status, message: message)
        }
    }

    /// `error.message` from either API's error object.
    static func apiMessage(_ body: [UInt8]) -> String? {
        guard case .object(let object)? = try? JSONValue.parse(Data(body)) else {
            let text = String(decoding: body.prefix(300), as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            return text.isEmpty ? nil : text
        }
        if case .object(let error)? = object["error"], case .string(let message)? = error["message"]
        {
            return message
        }
        if case .string(let message)? = object["message"] { return message }
        return nil
    }
}

extension JSONValue {
    /// Compact JSON text.
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    var intValue: Int? {
        switch self {
        case .int(let i): i
        case .double(let d): Int(d)
        default: nil
        }
    }
}

/// Parses a tool call's JSON arguments; text that is not a JSON object is kept under
/// `_unparsed` so the tool answers `invalid_argument` and the model can correct itself.
func toolInput(_ text: String) -> JSONValue {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty { return .object([:]) }
    if let value = try? JSONValue.parse(Data(trimmed.utf8)), case .object = value { return value }
    return .object(["_unparsed": .string(String(trimmed.prefix(2000)))])
}
