import NotesCore
import NotesIndex
import NotesStore

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
