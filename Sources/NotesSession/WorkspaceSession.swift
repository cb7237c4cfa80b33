import NotesCore
import NotesIndex
import NotesStore

/// One workspace opened for work: its files, its search index and the change history
/// that connects them. The index is a cache and writes no durable state; the session hands
/// it a ``ChangeLedger`` over the history, so the edits a refresh finds made outside notes
/// are logged as the person's (under the workspace lock) and the rows show the provenance
/// the log gives their bytes. Every process that refreshes the index opens it through a
/// session: the reading commands, `notes index`, `notes watch`, the MCP server and the
/// built-in agent.
public final class WorkspaceSession: Sendable {
    public let workspace: Workspace
    public let index: NoteIndex
    /// The change log (`.notes/history/`), read incrementally for the session's lifetime.
    public let history: HistoryStore
    /// Whether this session watches the workspace (``watchForChanges()``).
    let watchState = WatchStateBox()

    /// Opens the index of `workspace` in `indexDirectory` (see ``NoteIndex/init(workspace:directory:longLived:refreshingSoon:waitForBuilders:ledger:)``
    /// for the options).
    public init(
        workspace: Workspace, indexDirectory: String, longLived: Bool = false,
        refreshingSoon: Bool = false,
        waitForBuilders: Bool = true
    ) throws(NotesError) {
        let history = HistoryStore(workspace: workspace)
        self.workspace = workspace
        self.history = history
        self.index = try NoteIndex(
            workspace: workspace, directory: indexDirectory, longLived: longLived,
            refreshingSoon: refreshingSoon,
            waitForBuilders: waitForBuilders, ledger: HistoryLedger(history: history))
    }
}
