import NotesCore
import NotesIndex
import NotesStore

/// The index's ``ChangeLedger`` over the workspace's change history: the outside edits a
/// refresh finds are logged as the person's under the workspace lock, and the provenance the
/// rows are written with is read from the log as it then stands.
struct HistoryLedger: ChangeLedger {
    let history: HistoryStore

    func noteRemovals(_ removals: [OutsideRemoval]) {
        history.noteRemovals(removals)
    }

    func settle(_ edits: [OutsideEdit]) -> any ProvenanceLookup {
        let (histories, unlogged) = history.settle(edits)
        return LoggedProvenance(
            histories: histories,
            unlogged: Dictionary(unlogged.map { ($0.path, $0) }, uniquingKeysWith: { $1 }))
    }
}
