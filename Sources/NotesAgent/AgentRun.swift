import Foundation
import NotesCore
import NotesNetwork
import NotesTools

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs one session of the built-in agent (docs/spec.md §9): ask the model, run the tool calls it
/// makes through the shared ``Toolbox`` (as `agent`), send the results back, until the
/// model is done, a budget runs out, the API stays unavailable, or the person interrupts.
///
/// The checkpoint (`Chats/<id>.json`) is saved after every step: the model's reply, each
/// tool call before it runs (`started`) and after (`done`, with its result), and every
/// state change. A resumed session therefore never runs a tool call twice: a call found
/// `started` (the process died while it ran) is answered "interrupted, check the file"
/// instead of being run again.
public final class AgentRun {
    public private(set) var session: ChatSession
    let archive: ChatArchive
    let toolbox: Toolbox
    let provider: any ModelProvider
    let config: AgentConfig
    let observer: any AgentObserver
    /// Cancelled by SIGINT / SIGTERM: the transfer stops, the run saves and ends `interrupted`.
    public let cancellation: Cancellation
    let system: String

    public init(
        session: ChatSession, archive: ChatArchive, toolbox: Toolbox, provider: any ModelProvider,
        config: AgentConfig,
        observer: any AgentObserver, cancellation: Cancellation, system: String
    ) {
        self.session = session
        self.archive = archive
        self.toolbox = toolbox
        self.provider = provider
        self.config = config
        self.observer = observer
        self.cancellation = cancellation
        self.system = system
    }

    /// Runs until the session stops; returns it as saved. Never throws: every way of
    /// stopping is a state with a reason and a message.
    public func run() -> ChatSession {
        do throws(NotesError) {
            if session.state == .running {
                // A process died while running this session (its lock is free): record the stop first.
                try session.move(to: .interrupted)
            }
            try session.move(to: .running)
            session.stopReason = nil
            session.stopMessage = nil
            try save()
            try loop()
        } catch {
            observer.notice("the session could not be saved: \(error.description)")
            if session.state == .running { try? session.move(to: .failed) }
            session.stopReason = "checkpoint"
            session.stopMessage = error.description
        }
        return session
    }

    private func loop() throws(NotesError) {
        while true {
            if cancellation.isCancelled { return try stop(.interrupted, "signal", "interrupted") }
            if !session.pending.isEmpty {
                guard try runPendingCalls() else { return }
                continue
            }
            if let last = session.messages.last, last.role == .assistant, last.toolCalls.isEmpty {
                return try stop(.completed, "end_turn", "done")
            }
            if session.turns >= session.maxTurns {
                return try stop(
                    .interrupted, "max_turns",
                    "the budget of \(session.maxTurns) turns is used up; continue with notes agent --resume \(session.id) --max-turns \(session.maxTurns * 2)"
                )
            }
            if session.usage.total >= session.maxTokens {
                return try stop(
                    .interrupted, "max_tokens",
                    "the budget of \(session.maxTokens) tokens is used up (\(session.usage.total) used); continue with notes agent --resume \(session.id) --max-tokens \(session.maxTokens * 2)"
                )
            }
            guard let reply = try requestWithRetries() else { return }
            session.turns += 1
            session.usage = session.usage + reply.usage
            session.cost = session.usage.cost(at: config.prices[session.model])
            let message = ChatMessage(
                role: .assistant, content: reply.content.isEmpty ? [.text("")] : reply.content)
            session.messages.append(message)
            session.pending = message.toolCalls.map(PendingCall.init)
            try save()
            observer.turnEnded(session: session)
            if message.toolCalls.isEmpty {
                let note =
                    reply.stopReason == "max_tokens"
                    ? "done (the answer reached the output limit of \(config.maxOutputTokens) tokens)"
                    : "done"
                return try stop(.completed, reply.stopReason, note)
            }
        }
    }

    /// One model request, retried on transient failures with exponential backoff and
    /// jitter (or the server's Retry-After). Nil when the session stopped instead.
    private func requestWithRetries() throws(NotesError) -> ModelReply? {
        let request = ModelRequest(
            model: session.model, system: system, messages: session.messages, tools: toolbox.tools,
            maxOutputTokens: max(
                256, min(config.maxOutputTokens, session.maxTokens - session.usage.total)))
        var attempt = 1
        while true {
            do throws(ProviderFailure) {
                return try provider.complete(request, cancellation: cancellation) {
                    [observer] piece in observer.text(piece)
                }
            } catch {
                switch error {
                case .cancelled:
                    try stop(.interrupted, "signal", "interrupted")
                    return nil
                case .offline(let why):
                    try stop(
                        .interrupted, "offline",
                        "offline: \(why); nothing is lost: notes agent --resume \(session.id)")
                    return nil
                case .unauthorized(let why):
                    let variable =
                        provider.name == "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"
                    try stop(
                        .interrupted, "auth",
                        "the API refused the key (\(why)); check \(variable), then notes agent --resume \(session.id)"
                    )
                    return nil
                case .rejected(let status, let why):
                    try stop(
                        .failed, "api_error",
                        "the API rejected the request (\(status == 0 ? "" : "\(status): ")\(why))")
                    return nil
                case .transient(let status, let why, let retryAfter):
                    guard attempt < config.retryAttempts else {
                        try stop(
                            .interrupted, "api_unavailable",
                            "the API kept failing (\(status.map { "\($0): " } ?? "")\(why)) after \(attempt) attempts; notes agent --resume \(session.id) continues"
                        )
                        return nil
                    }
                    let backoff =
                        min(60, config.retryBaseDelay * pow(2, Double(attempt - 1)))
                        * Double.random(in: 0.5...1.0)
                    let delay = retryAfter.map { min(max($0, 0), 60) } ?? backoff
                    observer.notice(
                        "API unavailable (\(status.map { "\($0): " } ?? "")\(why)); retrying in \(String(format: "%.1f", delay)) s (attempt \(attempt + 1) of \(config.retryAttempts))"
                    )
                    attempt += 1
                    if !pause(delay) {
                        try stop(.interrupted, "signal", "interrupted")
                        return nil
                    }
                }
            }
        }
    }

    /// Sleeps `seconds` unless cancelled; false when cancelled.
    private func pause(_ seconds: Double) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if cancellation.isCancelled { return false }
            usleep(useconds_t(min(50_000, max(1_000, end.timeIntervalSinceNow * 1_000_000))))
        }
        return !cancellation.isCancelled
    }

    /// Runs the calls of the last reply that have not run, saving around each; then sends
    /// all results back as one message. False when the session stopped (cancelled).
    private func runPendingCalls() throws(NotesError) -> Bool {
        for index in session.pending.indices {
            let call = session.pending[index].call
            switch session.pending[index].status {
            case .done:
                continue
            case .started:
                // The process stopped while this call ran: it may or may not have taken effect.
                let message =
                    "this call was interrupted (the process stopped while it ran) and was not run again: it may or may not have taken effect. Check with read_file or file_history before trying it again."
                let outcome = ToolOutcome.failure(
                    NotesError(.internal, message, hint: "check the file before repeating the call")
                )
                session.pending[index].status = .done
                session.pending[index].result = outcome.text
                session.pending[index].isError = true
                try save()
                observer.toolFinished(
                    call, outcome: outcome, note: "not run again after the interruption")
            case .pending:
                if cancellation.isCancelled {
                    try stop(.interrupted, "signal", "interrupted")
                    return false
                }
                session.pending[index].status = .started
                try save()
                observer.toolStarted(call)
                var outcome = execute(call)
                var note: String?
                AgentFaults.reach(.toolRan, tool: call.name)
                if outcome.errorCode == "user_edited",
                    let resolved = try askPerson(call, refusal: outcome, index: index)
                {
                    (outcome, note) = resolved
                }
                let text = truncated(outcome.text)
                session.pending[index].status = .done
                session.pending[index].result = text + (note.map { "\n\n" + $0 } ?? "")
                session.pending[index].isError = outcome.isError
                try save()
                observer.toolFinished(call, outcome: outcome, note: note)
            }
        }
        let results: [ContentBlock] = session.pending.map {
            .toolResult(toolUseID: $0.call.id, content: $0.result ?? "", isError: $0.isError)
        }
        session.messages.append(ChatMessage(role: .user, content: results))
        session.pending = []
        try save()
        return true
    }

    private func execute(_ call: ToolCall, extra: [String: JSONValue] = [:]) -> ToolOutcome {
        guard case .object(var arguments) = call.input else {
            return ToolOutcome.failure(
                NotesError(.invalidArgument, "the arguments of \(call.name) must be a JSON object"))
        }
        for (key, value) in extra { arguments[key] = value }
        return toolbox.call(call.name, arguments: arguments)
    }

    /// A `user_edited` refusal: at a terminal, ask the person (yes / no / merge / propose)
    /// and repeat the call as they decide; with nobody to ask, keep the refusal and say so.
    private func askPerson(_ call: ToolCall, refusal: ToolOutcome, index: Int) throws(NotesError)
        -> (ToolOutcome, String?)?
    {
        guard case .object(let details)? = try? JSONValue.parse(refusal.json) else { return nil }
        var choices: [UserDecision] = [.yes, .no]
        if call.name == "write_file" { choices += [.merge, .propose] }
        let lost: [String] = {
            if case .array(let lines)? = details["lost_lines"] {
                return lines.compactMap(\.stringValue)
            } else {
                return []
            }
        }()
        let question = UserQuestion(
            call: call, path: details["path"]?.stringValue ?? call.input["path"]?.stringValue ?? "",
            diff: details["diff"]?.stringValue, lostLines: lost, choices: choices)
        // Waiting: a refused call changed nothing, so on resume it runs (and asks) again.
        session.pending[index].status = .pending
        try session.move(to: .waitingForUser)
        try save()
        let decision = observer.ask(question)
        try session.move(to: .running)
        session.pending[index].status = .started
        try save()
        switch decision {
        case nil:
            observer.notice(
                "\(question.path) has the person's edits; nobody is at the terminal to ask, so it was not overwritten"
            )
            return (
                refusal,
                "Nobody is at the terminal to ask the person, so their edits were kept. Do not overwrite them: use edit_file on your own lines, on_conflict \"merge\", or \"propose\"."
            )
        case .no?:
            return (
                refusal,
                "The person said no: keep their text as it is. You may propose changes instead (on_conflict \"propose\")."
            )
        case .yes?:
            return repeated(
                call, ["confirm_user_edits": .bool(true)],
                "The person agreed to replace their edits.",
                "The person agreed to replace their edits, but the write failed")
        case .merge?:
            return repeated(
                call, ["on_conflict": .string("merge")],
                "The person chose to merge: both your change and their edits are kept.",
                "The person chose to merge, but it could not be done (see the error); their text is unchanged"
            )
        case .propose?:
            return repeated(
                call, ["on_conflict": .string("propose")],
                "The person chose to review your version as a proposal (notes review).",
                "The person chose a proposal, but it could not be stored (see the error)")
        }
    }

    /// Runs `call` again with `extra` arguments, noting how it went for the model.
    private func repeated(
        _ call: ToolCall, _ extra: [String: JSONValue], _ success: String, _ failure: String
    ) -> (ToolOutcome, String?) {
        let outcome = execute(call, extra: extra)
        return (outcome, outcome.isError ? failure + "." : success)
    }

    /// Results over the configured size are cut at a character boundary, with a note.
    private func truncated(_ text: String) -> String {
        let limit = config.maxToolResultBytes
        guard text.utf8.count > limit else { return text }
        var cut = text.utf8.prefix(limit)
        while !cut.isEmpty, String(cut) == nil { cut = cut.dropLast() }
        return (String(cut) ?? "")
            + "\n[cut: the result is \(text.utf8.count) bytes, over the \(limit)-byte limit for one tool result; read files in pages with offset and limit]"
    }

    private func stop(_ state: SessionState, _ reason: String, _ message: String) throws(NotesError)
    {
        try session.move(to: state)
        session.stopReason = reason
        session.stopMessage = message
        try save()
    }

    private func save() throws(NotesError) {
        try archive.save(&session)
    }
}

/// Crash points of the loop, for tests (the reliability plan's kill tests): with
/// `NOTES_CRASH_AT=agent-tool-ran:<tool>` the process kills itself (SIGKILL) right after
/// that tool ran and before its result was saved.
enum AgentFaults {
    enum Step: String { case toolRan = "agent-tool-ran" }

    static let crash: (step: String, tool: String)? = {
        guard let value = ProcessInfo.processInfo.environment["NOTES_CRASH_AT"] else { return nil }
        let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }()

    static func reach(_ step: Step, tool: String) {
        if let crash, crash.step == step.rawValue, crash.tool == tool { kill(getpid(), SIGKILL) }
    }
}
