import NotesCore

/// Where a session is in its life (docs/spec.md §9.2). `running` is also what a crashed run leaves
/// behind; ``ChatArchive`` tells the two apart by the session's lock.
public enum SessionState: String, Sendable, Codable, CaseIterable {
    case idle, running, completed, failed, interrupted
    case waitingForUser = "waiting_for_user"

    /// The moves docs/spec.md §9.2 allows: idle → running → (waiting_for_user | completed | failed
    /// | interrupted), and interrupted | waiting_for_user → running.
    public func canMove(to next: SessionState) -> Bool {
        switch (self, next) {
        case (.idle, .running): true
        case (.running, .waitingForUser), (.running, .completed), (.running, .failed),
            (.running, .interrupted):
            true
        case (.interrupted, .running), (.waitingForUser, .running): true
        default: false
        }
    }

    /// Whether `notes agent --resume` can continue from here.
    public var isResumable: Bool { self == .interrupted || self == .waitingForUser }
}

/// Tokens used, summed over the session's requests.
public struct TokenUsage: Sendable, Equatable, Codable {
    public var input = 0
    public var output = 0

    public init(input: Int = 0, output: Int = 0) {
        self.input = input
        self.output = output
    }

    public var total: Int { input + output }

    public static func + (lhs: TokenUsage, rhs: TokenUsage) -> TokenUsage {
        TokenUsage(input: lhs.input + rhs.input, output: lhs.output + rhs.output)
    }

    /// Estimated dollars at `price` (per million tokens); nil when the price is unknown.
    public func cost(at price: AgentConfig.Price?) -> Double? {
        guard let price else { return nil }
        return (Double(input) * price.input + Double(output) * price.output) / 1_000_000
    }
}

/// A tool call of the last assistant message and how far it got. A call is marked
/// `started` (and saved) before it runs, so a crash during it is never followed by a
/// second run on resume.
public struct PendingCall: Sendable, Equatable, Codable {
    public enum Status: String, Sendable, Codable { case pending, started, done }

    public var call: ToolCall
    public var status: Status
    public var result: String?
    public var isError: Bool

    public init(call: ToolCall) {
        self.call = call
        self.status = .pending
        self.isError = false
    }

    enum CodingKeys: String, CodingKey {
        case call, status, result
        case isError = "is_error"
    }
}

/// A conversation with its checkpoint state: everything `Chats/<id>.json` holds, and
/// nothing secret (no key, no header).
public struct ChatSession: Sendable, Equatable, Codable {
    public var id: String
    public var title: String
    /// The person's task, as given.
    public var task: String
    public var createdBy = "agent"
    public var createdAt: String
    public var updatedAt: String
    public private(set) var state: SessionState
    /// Why the session stopped: `end_turn`, `max_turns`, `max_tokens`, `offline`,
    /// `api_unavailable`, `auth`, `signal`, `api_error`…
    public var stopReason: String?
    /// What the last stop means for the person, in one line.
    public var stopMessage: String?
    public var provider: String
    public var model: String
    public var messages: [ChatMessage] = []
    /// Tool calls of the last assistant message whose results are not in `messages` yet.
    public var pending: [PendingCall] = []
    /// Model requests answered.
    public var turns = 0
    public var usage = TokenUsage()
    /// Estimated dollars so far; nil when the model has no price in config.
    public var cost: Double?
    public var maxTurns: Int
    public var maxTokens: Int

    public init(
        id: String, title: String, task: String, provider: String, model: String, maxTurns: Int,
        maxTokens: Int, now: Double
    ) {
        self.id = id
        self.title = title
        self.task = task
        self.provider = provider
        self.model = model
        self.maxTurns = maxTurns
        self.maxTokens = maxTokens
        self.createdAt = Timestamp.format(now)
        self.updatedAt = createdAt
        self.state = .idle
        self.messages = [ChatMessage(role: .user, content: [.text(task)])]
    }

    /// Moves to `next`, or fails for a move docs/spec.md §9.2 does not allow.
    public mutating func move(to next: SessionState) throws(NotesError) {
        guard state.canMove(to: next) else {
            throw NotesError(
                .invalidArgument,
                "session \(id) is \(state.rawValue) and cannot become \(next.rawValue)",
                hint: state == .completed || state == .failed
                    ? "start a new session with notes agent TASK" : "see notes agent --list")
        }
        state = next
    }

    enum CodingKeys: String, CodingKey {
        case id, title, task, state, provider, model, messages, pending, turns, usage, cost
        case createdBy = "created_by", createdAt = "created_at", updatedAt = "updated_at"
        case stopReason = "stop_reason", stopMessage = "stop_message"
        case maxTurns = "max_turns", maxTokens = "max_tokens"
    }
}
