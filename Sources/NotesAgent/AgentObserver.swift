import NotesTools

/// What the person decides when the agent's change would replace their edits.
public enum UserDecision: String, Sendable, CaseIterable {
    /// Replace the person's text (the call is repeated with `confirm_user_edits`).
    case yes
    /// Keep the person's text; the agent is told so.
    case no
    /// Keep both: a three-way merge (`on_conflict: merge`).
    case merge
    /// Store the agent's version as a proposal for `notes review` (`on_conflict: propose`).
    case propose
}

/// A `user_edited` refusal that needs the person's answer.
public struct UserQuestion: Sendable {
    public var call: ToolCall
    public var path: String
    /// What the change would do to the person's text (unified diff).
    public var diff: String?
    /// The person's lines the change would lose.
    public var lostLines: [String]
    /// The answers that make sense for this tool.
    public var choices: [UserDecision]
}

/// Where the loop reports what happens, so the CLI can render it (streamed text on
/// stdout, tool lines and usage on stderr) and ask the person. Called on the loop's thread.
public protocol AgentObserver: AnyObject {
    /// A piece of the model's text, as it streams in.
    func text(_ piece: String)
    /// The model's turn ended (text done): usage so far.
    func turnEnded(session: ChatSession)
    /// A tool call is about to run.
    func toolStarted(_ call: ToolCall)
    /// A tool call ran (or was answered without running, on resume).
    func toolFinished(_ call: ToolCall, outcome: ToolOutcome, note: String?)
    /// Something the person should know (a retry, a budget, no terminal to ask).
    func notice(_ message: String)
    /// Asks the person; nil when nobody can answer (no terminal).
    func ask(_ question: UserQuestion) -> UserDecision?
}
