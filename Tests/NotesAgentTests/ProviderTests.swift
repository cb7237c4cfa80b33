import Foundation
import NotesCore
import NotesNetwork
import NotesTools
import Testing

@testable import NotesAgent

@Suite("Model providers")
struct ProviderTests {
    func events(_ pairs: [(String, String)]) -> [ServerSentEvent] {
        pairs.map { ServerSentEvent(event: $0.0, data: $0.1) }
    }

    @Test(
        "Anthropic: text deltas and tool input split across events become one reply; usage is summed"
    )
    func anthropicAssembly() throws {
        var assembler = AnthropicProvider.Assembler()
        var shown = ""
        for event in events([
            (
                "message_start",
                #"{"type":"message_start","message":{"usage":{"input_tokens":120,"cache_read_input_tokens":30,"output_tokens":1}}}"#
            ),
            (
                "content_block_start",
                #"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#
            ),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Look"}}"#
            ),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ing."}}"#
            ),
            (
                "content_block_start",
                #"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"search","input":{}}}"#
            ),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"query\": \"wh"}}"#
            ),
            (
                "content_block_delta",
                #"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ale\"}"}}"#
            ),
            ("ping", #"{"type":"ping"}"#),
            (
                "message_delta",
                #"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":42}}"#
            ),
            ("message_stop", #"{"type":"message_stop"}"#),
        ]) {
            if let text = try assembler.take(event) { shown += text }
        }
        let reply = try assembler.reply()
        #expect(shown == "Looking.")
        #expect(
            reply.content == [
                .text("Looking."),
                .toolUse(
                    id: "toolu_1", name: "search", input: .object(["query": .string("whale")])),
            ])
        #expect(reply.stopReason == "tool_use")
        #expect(reply.usage == TokenUsage(input: 150, output: 42))
    }

    @Test("Anthropic: an overloaded error event is transient; a stream cut short is transient too")
    func anthropicFailures() throws {
        func failure(_ events: [ServerSentEvent]) -> ProviderFailure? {
            var assembler = AnthropicProvider.Assembler()
            do {
                for event in events { _ = try assembler.take(event) }
                _ = try assembler.reply()
                return nil
            } catch {
                return error
            }
        }
        #expect(
            failure([
                ServerSentEvent(
                    event: "error",
                    data:
                        #"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
                )
            ])
                == .transient(status: 529, message: "Overloaded", retryAfter: nil))
        #expect(
            failure([
                ServerSentEvent(
                    event: "message_start",
                    data: #"{"type":"message_start","message":{"usage":{"input_tokens":1}}}"#)
            ])
                == .transient(
                    status: nil, message: "the answer stopped before it was complete",
                    retryAfter: nil))
        #expect(
            failure([
                ServerSentEvent(
                    event: "error",
                    data:
                        #"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#
                )
            ])
                == .rejected(status: 400, message: "bad"))
    }

    @Test(
        "OpenAI: content pieces and indexed tool-call fragments; finish_reason tool_calls is tool_use"
    )
    func openAIAssembly() throws {
        var assembler = OpenAIProvider.Assembler()
        let chunks = [
            #"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"search","arguments":"{\"query\":\"x\"}"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.md\"}"}}]}}]}"#,
            #"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
            #"{"choices":[],"usage":{"prompt_tokens":300,"completion_tokens":20}}"#,
            "[DONE]",
        ]
        for chunk in chunks { _ = try assembler.take(ServerSentEvent(data: chunk)) }
        let reply = try assembler.reply()
        #expect(
            reply.content == [
                .text("Hi"),
                .toolUse(
                    id: "call_a", name: "read_file", input: .object(["path": .string("a.md")])),
                .toolUse(id: "call_b", name: "search", input: .object(["query": .string("x")])),
            ])
        #expect(reply.stopReason == "tool_use")
        #expect(reply.usage == TokenUsage(input: 300, output: 20))
    }

    @Test(
        "request bodies: Anthropic blocks without empty text; OpenAI tool messages, and max_completion_tokens for api.openai.com"
    )
    func bodies() {
        let request = ModelRequest(
            model: "m", system: "sys",
            messages: [
                ChatMessage(role: .user, content: [.text("task")]),
                ChatMessage(
                    role: .assistant,
                    content: [
                        .text(""),
                        .toolUse(id: "t1", name: "search", input: .object(["query": .string("x")])),
                    ]),
                ChatMessage(
                    role: .user,
                    content: [.toolResult(toolUseID: "t1", content: "{}", isError: true)]),
            ], tools: Array(ToolCatalog.all.prefix(2)), maxOutputTokens: 100)
        let anthropic = AnthropicProvider.body(request)
        guard case .array(let messages)? = anthropic["messages"],
            case .array(let blocks)? = messages[1]["content"]
        else {
            Issue.record("no messages")
            return
        }
        #expect(blocks.count == 1)
        #expect(blocks[0]["type"] == .string("tool_use"))
        #expect(
            messages[2]["content"]
                == .array([
                    .object([
                        "type": .string("tool_result"), "tool_use_id": .string("t1"),
                        "content": .string("{}"), "is_error": .bool(true),
                    ])
                ]))
        #expect(anthropic["max_tokens"] == .int(100))
        #expect(OpenAIProvider.body(request)["max_tokens"] == .int(100))
        let official = OpenAIProvider.body(request, official: true)
        #expect(official["max_completion_tokens"] == .int(100) && official["max_tokens"] == nil)
        guard case .array(let chat)? = official["messages"] else { return }
        #expect(
            chat.map { $0["role"] } == [
                .string("system"), .string("user"), .string("assistant"), .string("tool"),
            ])
        #expect(chat[2]["content"] == .null)
        #expect(chat[3]["tool_call_id"] == .string("t1"))
    }

    @Test("malformed tool input reaches the tool as _unparsed (an invalid_argument it can correct)")
    func malformedInput() {
        #expect(toolInput("") == .object([:]))
        #expect(toolInput("{\"a\": 1") == .object(["_unparsed": .string("{\"a\": 1")]))
        #expect(toolInput("[1]") == .object(["_unparsed": .string("[1]")]))
    }

    @Test("HTTP statuses map to what the loop does: retry, stop for the key, or fail")
    func statusMapping() {
        let body = Array(
            #"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#.utf8)
        #expect(
            StreamingExchange.failure(status: 429, body: body, retryAfter: 2)
                == .transient(status: 429, message: "slow down", retryAfter: 2))
        #expect(
            StreamingExchange.failure(status: 529, body: [], retryAfter: nil)
                == .transient(status: 529, message: "HTTP 529", retryAfter: nil))
        #expect(
            StreamingExchange.failure(
                status: 401, body: Array(#"{"error":{"message":"bad key"}}"#.utf8), retryAfter: nil)
                == .unauthorized("bad key"))
        #expect(
            StreamingExchange.failure(status: 400, body: Array("plain text".utf8), retryAfter: nil)
                == .rejected(status: 400, message: "plain text"))
    }

    @Test("provider selection: explicit, then the key that is set; missing keys are clear errors")
    func selection() throws {
        let config = AgentConfig()
        let client = HTTPClient()
        #expect(throws: NotesError.self) {
            _ = try ProviderSelection.resolve(
                name: nil, model: nil, tier: nil, config: config, environment: [:], client: client)
        }
        let anthropic = try ProviderSelection.resolve(
            name: nil, model: nil, tier: "fast", config: config,
            environment: ["ANTHROPIC_API_KEY": "k"], client: client)
        #expect(anthropic.provider.name == "anthropic")
        #expect(anthropic.model == "claude-haiku-4-5")
        #expect(anthropic.provider.baseURL == "https://api.anthropic.com")
        let local = try ProviderSelection.resolve(
            name: nil, model: "llama3.1", tier: nil, config: config,
            environment: ["OPENAI_BASE_URL": "http://127.0.0.1:11434/v1/"], client: client)
        #expect(local.provider.name == "openai")
        #expect(local.provider.baseURL == "http://127.0.0.1:11434/v1")
        #expect(throws: NotesError.self) {
            _ = try ProviderSelection.resolve(
                name: "anthropic", model: nil, tier: nil, config: config, environment: [:],
                client: client)
        }
        #expect(throws: NotesError.self) {
            _ = try ProviderSelection.resolve(
                name: nil, model: nil, tier: "huge", config: config,
                environment: ["ANTHROPIC_API_KEY": "k"], client: client)
        }
    }

    @Test("agent: settings in config are read, and bad ones reported with their line")
    func config() {
        let config = WorkspaceConfig.parse(
            """
            agent:
              provider: openai
              tiers:
                fast: qwen2.5
              prices:
                qwen2.5: {input: 0, output: 0}
              max_turns: 7
              retry_attempts: zero
              colour: blue
            """, sourcePath: ".notes/config.yml")
        #expect(config.agent.provider == "openai")
        #expect(config.agent.model(tier: "fast", provider: "openai") == "qwen2.5")
        #expect(config.agent.model(tier: "balanced", provider: "anthropic") == "claude-sonnet-4-5")
        #expect(config.agent.prices["qwen2.5"] == AgentConfig.Price(input: 0, output: 0))
        #expect(config.agent.maxTurns == 7)
        #expect(config.diagnostics.map(\.line) == [8, 9])
        #expect(config.diagnostics.map(\.message).contains("unknown setting 'agent.colour'"))
    }
}
