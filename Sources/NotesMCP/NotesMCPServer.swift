import Dispatch
import Foundation
import Logging
import MCP
import NotesCore
import NotesIndex
import NotesSession
import NotesStore
import NotesTools

/// `notes mcp`: the agent's tools (docs/spec.md §7), the workspace's files as resources and the
/// prompts, served over stdio with the MCP Swift SDK. Tool calls run one at a time on
/// their own queue, so slow disk work never stalls the message loop.
public struct NotesMCPServer: Sendable {
    public struct Options: Sendable {
        /// Only the reading tools.
        public var readOnly = false
        /// The agent's name in history; nil = the client's name from the handshake.
        public var client: String?
        public init(readOnly: Bool = false, client: String? = nil) {
            self.readOnly = readOnly
            self.client = client
        }
    }

    public static let version = ProductVersion.number
    /// Resources listed per page of `resources/list`.
    static let resourcePage = 200

    let toolbox: Toolbox
    let options: Options
    let queue = DispatchQueue(label: "notes.mcp.tools")

    public init(session: WorkspaceSession, options: Options) {
        self.options = options
        self.toolbox = Toolbox(
            session: session, client: options.client ?? "mcp", readOnly: options.readOnly,
            templates: try? TemplateLibrary.locate(explicit: nil))
    }

    static let instructions = """
        notes: a folder of Markdown notes shared by a person and their agents. Start with get_context. Find content with \
        search, names with list_files; read_file before changing a file and pass its version as expected_version. The person \
        may have refined what you wrote: a user_edited answer means ask them, merge, or propose, never overwrite. Add to the \
        journal and context.md with append_file and remember (they are append-only for you). Every change is kept in \
        history (file_history, restore_file).
        """

    /// Serves until the client closes stdin.
    public func run() async throws {
        // stdout is the protocol channel: logs go to stderr, whatever the process's logging setup.
        var logger = Logger(
            label: "notes.mcp", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel =
            ProcessInfo.processInfo.environment["NOTES_MCP_DEBUG"] == nil ? .warning : .debug
        let server = Server(
            name: "notes", version: Self.version, title: "notes: the shared workspace",
            instructions: Self.instructions,
            capabilities: .init(
                prompts: .init(listChanged: false),
                resources: .init(subscribe: false, listChanged: false),
                tools: .init(listChanged: false)))
        await register(on: server)
        let transport = LineTransport(
            maxMessageBytes: 4 * toolbox.workspace.config.writeMaxBytes + (1 << 20),
            shortcut: ToolCallShortcut(
                toolbox: toolbox, queue: queue, consent: PersonConsent(server: server)),
            logger: logger)
        let toolbox = self.toolbox
        let fixedClient = options.client != nil
        try await server.start(transport: transport) { client, _ in
            if !fixedClient { toolbox.setClient(client.name) }
        }
        await server.waitUntilCompleted()
        // Requests run in their own tasks: let the last answers go out before exiting.
        await drain()
        toolbox.embedding?.finish()
    }

    /// Waits for calls still running on the tool queue, then a moment for their replies.
    func drain() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            queue.async { done.resume() }
        }
        try? await Task.sleep(for: .milliseconds(50))
    }

    /// Runs `body` on the tool queue.
    func onQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    private func register(on server: Server) async {
        let toolbox = self.toolbox
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: toolbox.tools.map(Self.tool))
        }
        await server.withMethodHandler(CallTool.self) { params in
            let arguments = params.arguments?.mapValues(ValueBridge.json)
            let consent = PersonConsent(server: server)
            let outcome = await onQueue { consent.call(toolbox, params.name, arguments: arguments) }
            let structured = (try? JSONValue.parse(outcome.json)).map(ValueBridge.value)
            return CallTool.Result(
                content: [.text(text: outcome.text, annotations: nil, _meta: nil)],
                structuredContent: structured, isError: outcome.isError)
        }
        await server.withMethodHandler(ListResources.self) { params in
            try await onQueue {
                Result {
                    try ResourceCatalog(toolbox: toolbox).page(
                        cursor: params.cursor, size: Self.resourcePage)
                }
            }.get()
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            ListResourceTemplates.Result(templates: [
                Resource.Template(
                    uriTemplate: "notes://{+path}", name: "file",
                    title: "A workspace file",
                    description:
                        "Any file of the workspace by its path, e.g. notes://Research/moby-dick/introduction.md",
                    mimeType: "text/markdown")
            ])
        }
        await server.withMethodHandler(ReadResource.self) { params in
            try await onQueue {
                Result { try ResourceCatalog(toolbox: toolbox).read(uri: params.uri) }
            }.get()
        }
        await server.withMethodHandler(ListPrompts.self) { _ in
            ListPrompts.Result(
                prompts: AgentPrompts.all.map { prompt in
                    Prompt(
                        name: prompt.name, title: prompt.title, description: prompt.description,
                        arguments: prompt.arguments.map {
                            Prompt.Argument(
                                name: $0.name, description: $0.description, required: $0.required)
                        })
                })
        }
        await server.withMethodHandler(GetPrompt.self) { params in
            let today = Timestamp.localDate(Timestamp.now())
            guard let prompt = AgentPrompts.all.first(where: { $0.name == params.name }),
                let text = AgentPrompts.render(
                    params.name, arguments: params.arguments ?? [:], today: today)
            else {
                throw MCPError.invalidParams(
                    "there is no prompt '\(params.name)'; the prompts are: \(AgentPrompts.all.map(\.name).joined(separator: ", "))"
                )
            }
            for argument in prompt.arguments
            where argument.required && (params.arguments?[argument.name] ?? "").isEmpty {
                throw MCPError.invalidParams(
                    "prompt \(prompt.name) needs the argument '\(argument.name)'")
            }
            return GetPrompt.Result(
                description: prompt.description, messages: [.user(.text(text: text))])
        }
    }

    static func tool(_ definition: ToolDefinition) -> Tool {
        Tool(
            name: definition.name, title: definition.title, description: definition.description,
            inputSchema: ValueBridge.value(definition.inputSchema),
            // The title is the tool's own; hints at their defaults are left out (readOnly and
            // idempotent default to false; destructive and idempotent mean nothing for a
            // reading tool), openWorldHint always said, as its default is true.
            annotations: .init(
                readOnlyHint: definition.readOnly ? true : nil,
                destructiveHint: definition.readOnly ? nil : definition.destructive,
                idempotentHint: definition.idempotent && !definition.readOnly ? true : nil,
                openWorldHint: definition.openWorld))
    }
}
