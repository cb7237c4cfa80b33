import ArgumentParser
import Dispatch
import Foundation
import NotesAgent
import NotesCore
import NotesIndex
import NotesNetwork
import NotesSession
import NotesStore
import NotesTools

extension NotesCommand {
    /// `notes agent TASK`: the built-in agent in the terminal (docs/spec.md §9).
    struct Agent: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent",
            abstract:
                "Run the built-in agent on a task (the MCP tools and guards, in the terminal).",
            discussion: """
                The agent works as "agent": it reads before it changes a file, and a change
                that would replace your edits is put to you (yes / no / merge / propose) at
                the terminal, and refused when nobody is there. The conversation is saved
                to Chats/<id>.json after every step; Ctrl-C stops it, --resume continues.

                Providers (keys from the environment only):
                  ANTHROPIC_API_KEY [ANTHROPIC_BASE_URL]   Anthropic Messages API
                  OPENAI_BASE_URL [OPENAI_API_KEY]         OpenAI-compatible, local servers
                Models by tier and prices: agent: in .notes/config.yml (docs/agent.md).

                  notes agent "Draft an introduction to Moby Dick for me"
                  notes agent --tier fast "Add today's reading to my journal"
                  OPENAI_BASE_URL=http://127.0.0.1:11434/v1 notes agent --model llama3.1 "…"
                  notes agent --list
                  notes agent --resume 2026-11-21-draft-an-introduction-to-moby
                """)

        @OptionGroup var workspace: WorkspaceOptions
        @Argument(help: "What the agent should do (several words are joined).") var task: [String] =
            []
        @Option(name: .long, help: ArgumentHelp("Continue a stopped session.", valueName: "id"))
        var resume: String?
        @Flag(name: .long, help: "List the sessions with state, turns, tokens and cost.") var list =
            false
        @Option(
            name: .long,
            help: ArgumentHelp(
                "anthropic or openai (default: from config, else the key that is set).",
                valueName: "name"), completion: .list(["anthropic", "openai"])) var provider:
            String?
        @Option(
            name: .long, help: ArgumentHelp("The model id (overrides the tier).", valueName: "id"))
        var model: String?
        @Option(
            name: .long,
            help: ArgumentHelp(
                "fast, balanced or powerful (default: agent.tier, else balanced).",
                valueName: "tier"), completion: .list(["fast", "balanced", "powerful"])) var tier:
            String?
        @Option(
            name: .customLong("max-turns"),
            help: ArgumentHelp(
                "Model requests before stopping (default: agent.max_turns, 30).", valueName: "n"))
        var maxTurns: Int?
        @Option(
            name: .customLong("max-tokens"),
            help: ArgumentHelp(
                "Input + output tokens before stopping (default: agent.max_tokens, 1,000,000).",
                valueName: "n")) var maxTokens: Int?
        @Option(name: .long, help: ArgumentHelp("The agent's name in history.", valueName: "name"))
        var client = "notes-agent"
        @Flag(
            name: .long, help: "Print the session's outcome as JSON (text still streams to stderr)."
        ) var json = false

        func validate() throws {
            if let maxTurns, maxTurns <= 0 {
                throw NotesError(.invalidArgument, "--max-turns must be positive")
            }
            if let maxTokens, maxTokens <= 0 {
                throw NotesError(.invalidArgument, "--max-tokens must be positive")
            }
            if list, resume != nil || !task.isEmpty {
                throw NotesError(.invalidArgument, "--list takes no task and no --resume")
            }
            if resume != nil, !task.isEmpty {
                throw NotesError(
                    .invalidArgument, "--resume continues a session; it takes no new task",
                    hint: "start a new session with notes agent TASK")
            }
            if !list, resume == nil,
                task.joined().trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
            {
                throw NotesError(
                    .invalidArgument, "give the agent a task",
                    hint: "notes agent \"Draft an introduction to Moby Dick\"")
            }
        }

        func run() throws {
            let ws = try workspace.openWorkspace()
            let store = NoteStore(workspace: ws)
            let archive = ChatArchive(store: store)
            if list { return try printList(archive.list(), config: ws.config.agent) }

            let config = ws.config.agent
            let environment = ProcessInfo.processInfo.environment
            let http = HTTPClient(userAgent: "notes/\(NotesCommand.version)")
            var session: ChatSession
            let selection: ProviderSelection
            if let resume {
                session = try archive.load(resume)
                guard session.state.isResumable || session.state == .running else {
                    throw NotesError(
                        .invalidArgument,
                        "session \(session.id) is \(session.state.rawValue) and cannot be resumed",
                        hint: "start a new session with notes agent TASK")
                }
                selection = try ProviderSelection.resolve(
                    name: provider ?? session.provider, model: model ?? session.model, tier: tier,
                    config: config, environment: environment, client: http)
                session.model = selection.model
                if let maxTurns { session.maxTurns = maxTurns }
                if let maxTokens { session.maxTokens = maxTokens }
            } else {
                selection = try ProviderSelection.resolve(
                    name: provider, model: model, tier: tier, config: config,
                    environment: environment, client: http)
                let text = task.joined(separator: " ").trimmingCharacters(
                    in: .whitespacesAndNewlines)
                let now = Timestamp.now()
                let title = String(
                    text.split(separator: "\n").first.map(String.init)?.prefix(80) ?? "")
                session = ChatSession(
                    id: archive.newID(task: text, now: now), title: title, task: text,
                    provider: selection.provider.name,
                    model: selection.model, maxTurns: maxTurns ?? config.maxTurns,
                    maxTokens: maxTokens ?? config.maxTokens, now: now)
            }
            let lock = try archive.lock(session.id)
            defer { withExtendedLifetime(lock) {} }

            let workspaceSession = try workspace.openSession(ws, longLived: true)
            // Tool calls then refresh only the files that changed (a full walk otherwise).
            if workspaceSession.watchForChanges() != nil {
                _ = try workspaceSession.index.refresh()
            }
            let toolbox = Toolbox(
                session: workspaceSession, client: client,
                templates: try? TemplateLibrary.locate(explicit: nil))
            defer { toolbox.embedding?.finish() }
            let system = SystemPrompt.render(
                context: toolbox.call("get_context", arguments: nil),
                workspaceName: (ws.root as NSString).lastPathComponent,
                today: Timestamp.localDate(Timestamp.now()))
            let transcript = AgentTranscript(
                interactive: isatty(STDIN_FILENO) == 1, textToStderr: json, config: config)
            let cancellation = Cancellation()
            let signals = SignalTrap(transcript: transcript) {
                cancellation.cancel()
                toolbox.cancellation.cancel()
            }
            defer { withExtendedLifetime(signals) {} }

            transcript.begin(session: session, provider: selection.provider, resumed: resume != nil)
            let runner = AgentRun(
                session: session, archive: archive, toolbox: toolbox, provider: selection.provider,
                config: config,
                observer: transcript, cancellation: cancellation, system: system)
            let final = runner.run()
            transcript.end(session: final)
            if json {
                Terminal.write(
                    try JSONOutput.document(
                        SessionSummary(final, path: "\(NoteStore.chatsFolder)/\(final.id).json")))
            }
            switch final.state {
            case .completed: return
            case .interrupted where final.stopReason == "signal": throw ExitCode(130)
            default:
                if !json {
                    StandardStreams.writeError(
                        "notes: \(final.stopMessage ?? final.state.rawValue)\n")
                }
                throw ExitCode(2)
            }
        }

        private func printList(_ sessions: [ChatSession], config: AgentConfig) throws {
            if json {
                return Terminal.write(
                    try JSONOutput.document(
                        sessions.map {
                            SessionSummary($0, path: "\(NoteStore.chatsFolder)/\($0.id).json")
                        }))
            }
            guard !sessions.isEmpty else {
                return Terminal.write("no agent sessions yet (start one with notes agent TASK)\n")
            }
            for s in sessions {
                let cost = s.cost.map { String(format: "$%.4f", $0) } ?? "cost ?"
                let state = Terminal.style(
                    s.state.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0),
                    s.state == .completed ? .green : s.state == .failed ? .red : .yellow)
                Terminal.write(
                    "\(state) \(s.id)\n"
                        + Terminal.style(
                            "                 \(s.turns) turns · \(grouped(s.usage.input)) in / \(grouped(s.usage.output)) out · \(cost) · \(s.model) · \(s.updatedAt)",
                            .dim) + "\n")
                if let message = s.stopMessage, s.state != .completed {
                    Terminal.write(Terminal.style("                 \(message)", .dim) + "\n")
                }
            }
        }
    }
}

/// A session as `--list` and `--json` show it (no messages).
struct SessionSummary: Encodable {
    var id: String, path: String, title: String, state: String, stop_reason: String?,
        message: String?
    var turns: Int, input_tokens: Int, output_tokens: Int, cost: Double?, model: String,
        provider: String
    var created_at: String, updated_at: String, answer: String

    init(_ s: ChatSession, path: String) {
        id = s.id
        self.path = path
        title = s.title
        state = s.state.rawValue
        stop_reason = s.stopReason
        message = s.stopMessage
        turns = s.turns
        input_tokens = s.usage.input
        output_tokens = s.usage.output
        cost = s.cost
        model = s.model
        provider = s.provider
        created_at = s.createdAt
        updated_at = s.updatedAt
        answer = s.messages.last(where: { $0.role == .assistant })?.text ?? ""
    }
}

/// SIGINT / SIGTERM during a run: the first stops the run after the current step (the
/// checkpoint is saved and marked interrupted); while the person is being asked, or on a
/// second signal, the process exits at once (the checkpoint is already saved).
final class SignalTrap {
    private var sources: [any DispatchSourceSignal] = []

    init(transcript: AgentTranscript, onStop: @escaping @Sendable () -> Void) {
        let count = SignalCount()
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if count.increment() > 1 || transcript.isAsking { Foundation.exit(130) }
                StandardStreams.writeError(
                    "\nnotes: stopping after the current step (Ctrl-C again to quit now)\n")
                onStop()
            }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

private final class SignalCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
