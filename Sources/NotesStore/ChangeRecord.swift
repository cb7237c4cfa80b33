import NotesCore

/// One line of `.notes/history/log.jsonl`: who did what to which file, and the versions
/// before and after (their bytes are in the object store).
public struct ChangeRecord: Codable, Sendable, Equatable {
    /// ISO 8601 UTC.
    public var time: String
    public var actor: Actor
    /// The client's name (`cli`, the MCP client's name, `notes-agent`, `editor`).
    public var client: String
    public var operation: ChangeOperation
    public var path: String
    /// The new path of a move.
    public var to: String?
    /// The version replaced; nil when the file was created.
    public var before: String?
    /// The version written; nil when the file was deleted.
    public var after: String?
    /// The proposal accepted, rejected or created.
    public var proposal: String?
    /// For an agent's change to a file with the person's edits pending: the agent's own
    /// text with this change applied (the reference for "lines the person changed"). The
    /// person's lines stay protected across the agent's edits and appends.
    public var agentBase: String?

    public init(
        time: String = Timestamp.format(Timestamp.now()), actor: Actor, client: String,
        operation: ChangeOperation,
        path: String, to: String? = nil, before: String?, after: String?, proposal: String? = nil,
        agentBase: String? = nil
    ) {
        self.time = time
        self.actor = actor
        self.client = client
        self.operation = operation
        self.path = path
        self.to = to
        self.before = before
        self.after = after
        self.proposal = proposal
        self.agentBase = agentBase
    }

    enum CodingKeys: String, CodingKey {
        case time, actor, client, path, to, before, after, proposal
        case operation = "op", agentBase = "agent_base"
    }

    /// The path this record leaves content at (the target of a move).
    public var resultPath: String { to ?? path }

    /// Who made the change, as a message says it: the actor, and that notes only found it
    /// (`user, outside notes`).
    public var madeBy: String {
        client == HistoryStore.outsideNotes
            ? "\(actor.rawValue), \(HistoryStore.outsideNotes)" : actor.rawValue
    }
}
