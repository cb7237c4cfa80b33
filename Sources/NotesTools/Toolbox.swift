import Foundation
import NotesCore
import NotesIndex
import NotesNetwork
import NotesSession
import NotesStore

/// The agent's tools over one workspace (docs/spec.md §7): one implementation that both the MCP
/// server and the built-in agent call, acting as `agent` under the agent's guard, policy
/// and protected paths. Calls run one at a time.
public final class Toolbox: @unchecked Sendable {
    public let workspace: Workspace
    public let store: NoteStore
    /// The workspace's index and history, and the watch that keeps the index fresh.
    public let session: WorkspaceSession
    public var index: NoteIndex { session.index }
    /// Only the reading tools (`notes mcp --read-only`).
    public let readOnly: Bool
    /// The tools this toolbox offers.
    public let tools: [ToolDefinition]

    /// The shipped templates (nil when not found: only the workspace's own are offered).
    let templateLibrary: TemplateLibrary?
    /// Downloads for fetch_url.
    let fetcher: WebFetch
    /// Cancels a download in progress (the built-in agent's SIGINT).
    public let cancellation = Cancellation()
    /// Embeds new and changed passages in the background when a model is installed (nil:
    /// search runs by words alone).
    public let embedding: BackgroundEmbedding?

    /// The large files recent search answers quoted from.
    let quotedFiles = QuotedFiles()

    private let lock = NSLock()
    private var clientName: String
    /// When this session started; get_context reports the person's changes since the
    /// agent's last action before it.
    let sessionStart: Double

    public init(
        session: WorkspaceSession, client: String, readOnly: Bool = false,
        templates: TemplateLibrary? = nil, now: Double = Timestamp.now()
    ) {
        let workspace = session.workspace
        self.templateLibrary = templates
        self.fetcher = WebFetch(store: NoteStore(workspace: workspace))
        self.workspace = workspace
        self.store = NoteStore(workspace: workspace)
        self.session = session
        self.readOnly = readOnly
        self.tools = readOnly ? ToolCatalog.readOnly : ToolCatalog.all
        self.clientName = client
        self.sessionStart = now
        self.embedding = BackgroundEmbedding(index: session.index)
    }

    /// Who the agent is in history (`client` in the log).
    public var author: Author {
        lock.lock()
        defer { lock.unlock() }
        return Author(.agent, client: clientName)
    }

    /// Names the agent after the client (the MCP handshake's client name), unless a name
    /// was fixed with `--client`.
    public func setClient(_ name: String) {
        let clean = name.filter { !$0.isNewline && $0 != "\0" }.prefix(100)
        guard !clean.isEmpty else { return }
        lock.lock()
        clientName = String(clean)
        lock.unlock()
    }

    /// Before every tool call, resource listing and resource read: fails with `not_found`
    /// when the workspace folder was moved or deleted during the session (the agent would
    /// otherwise see an empty workspace), and loads `.notes/config.yml` again when the
    /// person changed it, rescanning under it: a path protected a moment ago is hidden from
    /// the very next call (two `stat`s when nothing changed).
    public func followWorkspace() throws(NotesError) {
        guard workspace.isStillAtItsPath else { throw workspace.movedError }
        guard workspace.reloadConfigIfChanged() else { return }
        do {
            try session.settingsChanged()
            embedding?.kick()
        } catch  where error.cause == .indexUnusable {
            // No index to rescan: the tools that need it say why; the others go on.
        }
    }

    /// Brings the index up to date (``WorkspaceSession/refreshIfNeeded()``) and starts the
    /// background embedding when the index's files changed since its last pass.
    @discardableResult
    public func refreshIndex() throws(NotesError) -> RefreshReport {
        let report = try session.refreshIfNeeded()
        embedding?.kickIfStale()
        return report
    }

    /// Runs tool `name` with `arguments`. Never throws: errors are outcomes with a code.
    public func call(_ name: String, arguments: [String: JSONValue]?) -> ToolOutcome {
        guard let tool = tools.first(where: { $0.name == name }) else {
            if readOnly, ToolCatalog.all.contains(where: { $0.name == name }) {
                return .failure(
                    NotesError(
                        .invalidArgument, "\(name) is not available: this server is read-only",
                        hint:
                            "only reading tools can be used here: \(tools.map(\.name).joined(separator: ", "))"
                    ))
            }
            let shown = name.count > 64 ? String(name.prefix(64)) + "…" : name
            return .failure(
                NotesError(
                    .invalidArgument, "there is no tool '\(shown)'",
                    hint: "the tools are: \(tools.map(\.name).joined(separator: ", "))"))
        }
        lock.lock()
        defer { lock.unlock() }
        let outcome: ToolOutcome
        do {
            try followWorkspace()
            let args = try ToolArguments(
                tool: name, values: arguments ?? [:], parameters: tool.parameterNames)
            outcome = try run(name, args, as: Author(.agent, client: clientName))
        } catch {
            outcome = .failure(agentFacing(error, tool: name, arguments: arguments))
        }
        // A broken config fails closed; every answer says so, naming the line (issue 34).
        if let warning = workspace.config.unreadableWarning {
            return outcome.adding(configWarning: warning)
        }
        return outcome
    }

    private func run(_ name: String, _ args: ToolArguments, as author: Author) throws(NotesError)
        -> ToolOutcome
    {
        // Changes answer without echoing the path and version the agent passed.
        let asked = args.given("path")
        let change = { (result: ChangeResult) in
            ToolOutcome.success(
                ChangeAnswer(
                    result: result, askedPath: asked,
                    expectedVersion: args.given("expected_version")))
        }
        switch name {
        case "read_file":
            let result = try readFile(args, author)
            return .success(
                ReadAnswer(
                    result, asked: asked, searchable: index.searchesInside(result.path)))
        case "read_files": return .success(try readFiles(args, author))
        case "list_files": return .success(try listFiles(args))
        case "search": return .success(try search(args))
        case "related": return .success(try related(args, author))
        case "file_history": return .success(try fileHistory(args, author))
        case "get_context": return .success(try context(author))
        case "write_file": return change(try writeFile(args, author))
        case "append_file": return change(try appendFile(args, author))
        case "edit_file": return change(try editFile(args, author))
        case "delete_file": return change(try deleteFile(args, author))
        case "move_file":
            return .success(
                ChangeAnswer(
                    result: try moveFile(args, author), askedPath: nil,
                    expectedVersion: args.given("expected_version")))
        case "restore_file": return change(try restoreFile(args, author))
        case "remember": return .success(RememberAnswer(result: try remember(args, author)))
        case "list_proposals": return .success(listProposals(author))
        case "withdraw_proposal": return .success(try withdrawProposal(args, author))
        case "list_templates": return .success(try listTemplates())
        case "new_from_template": return .success(try newFromTemplate(args, author))
        case "fetch_url":
            return .success(
                try fetcher.fetch(
                    try args.requiredString("url", maxBytes: 8192), to: try optionalPath(args),
                    by: author, cancellation: cancellation))
        default:
            throw NotesError(
                .internal, "tool \(name) has no implementation", hint: "report this as a bug")
        }
    }
}
