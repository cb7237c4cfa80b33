import Foundation
import NotesAgent
import NotesCore
import NotesTools
import Testing

@Suite("Session states and checkpoints")
struct ChatSessionTests {
    @Test("only the transitions of docs/spec.md §9.2 are allowed")
    func transitions() {
        let allowed: Set<String> = [
            "idle>running", "running>waiting_for_user", "running>completed", "running>failed",
            "running>interrupted",
            "interrupted>running", "waiting_for_user>running",
        ]
        for from in SessionState.allCases {
            for to in SessionState.allCases {
                #expect(
                    from.canMove(to: to) == allowed.contains("\(from.rawValue)>\(to.rawValue)"),
                    "\(from) → \(to)")
            }
        }
    }

    @Test("an invalid move is rejected with invalid_argument and leaves the state alone")
    func invalidMove() throws {
        var session = ChatSession(
            id: "s", title: "t", task: "t", provider: "anthropic", model: "m", maxTurns: 3,
            maxTokens: 100, now: 0)
        try session.move(to: .running)
        try session.move(to: .completed)
        #expect(throws: NotesError.self) { try session.move(to: .running) }
        #expect(session.state == .completed)
    }

    @Test("a checkpoint round-trips through JSON and is readable by the chat indexer's shape")
    func roundTrip() throws {
        var session = ChatSession(
            id: "2026-11-21-x", title: "Draft", task: "Draft an introduction", provider: "openai",
            model: "m", maxTurns: 3, maxTokens: 100, now: 0)
        session.messages.append(
            ChatMessage(
                role: .assistant,
                content: [
                    .text("Looking."),
                    .toolUse(id: "t1", name: "search", input: .object(["query": .string("whale")])),
                ]))
        session.pending = [
            PendingCall(
                call: ToolCall(
                    id: "t1", name: "search", input: .object(["query": .string("whale")])))
        ]
        session.usage = TokenUsage(input: 1200, output: 80)
        let data = try JSONEncoder().encode(session)
        let back = try JSONDecoder().decode(ChatSession.self, from: data)
        #expect(back == session)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let messages = try #require(object["messages"] as? [[String: Any]])
        #expect(messages.map { $0["role"] as? String } == ["user", "assistant"])
        let blocks = try #require(messages[1]["content"] as? [[String: Any]])
        #expect(blocks.map { $0["type"] as? String } == ["text", "tool_use"])
        #expect(object["state"] as? String == "idle")
    }

    @Test("cost follows the configured price per million tokens; unknown price, unknown cost")
    func cost() {
        let usage = TokenUsage(input: 2_000_000, output: 100_000)
        #expect(usage.cost(at: AgentConfig.Price(input: 3, output: 15)) == 7.5)
        #expect(usage.cost(at: nil) == nil)
    }
}
