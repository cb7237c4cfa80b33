import NotesCore
import NotesIndex
import NotesStore

/// The index's ``ChangeLedger`` over the workspace's change history: the outside edits a
/// refresh finds are logged as the person's under the workspace lock, and the provenance the
/// rows are written with is read from the log as it then stands.
struct HistoryLedger: ChangeLedger {
    let history: HistoryStore

    func settle(_ edits: [OutsideEdit]) -> any ProvenanceLookup {
        let (histories, unlogged) = history.settle(edits)
        return LoggedProvenance(
            histories: histories,
            unlogged: Dictionary(unlogged.map { ($0.path, $0) }, uniquingKeysWith: { $1 }))
    }
}

/// Effective provenance from the log: a path's history corrects what its front matter
/// states; an outside edit the log could not take shows what its line would make it.
struct LoggedProvenance: ProvenanceLookup {
    let histories: [String: PathHistory]
    let unlogged: [String: OutsideEdit]

    func effective(path: String, stated: Provenance, version: String, mtime: Double) -> Provenance {
        if let edit = unlogged[path], edit.version == version {
            return (histories[path] ?? PathHistory()).effectiveAfterOutsideEdit(
                path: path, stated: stated, replacing: edit.before, version: version, mtime: mtime)
        }
        return histories[path]?.effective(stated: stated, version: version, mtime: mtime)
            ?? stated.effective(mtimeSeconds: mtime)
    }
}
