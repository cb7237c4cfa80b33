import NotesCore

/// No history (an index opened on its own, as tests and the fuzzer do): the front matter's
/// provenance, completed from the file's mtime.
struct StatedProvenance: ProvenanceLookup, ChangeLedger {
    func effective(path: String, stated: Provenance, version: String, mtime: Double) -> Provenance {
        stated.effective(mtimeSeconds: mtime)
    }

    func settle(_ edits: [OutsideEdit]) -> any ProvenanceLookup { self }
}
