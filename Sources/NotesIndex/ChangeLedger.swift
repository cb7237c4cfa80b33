import NotesCore

/// What a refresh needs from the workspace's change history, which the index does not own:
/// the history lives in NotesStore, and the layer that opens a workspace (NotesSession)
/// connects the two. The index stays a cache: it never writes the history itself.
///
/// A refresh calls ``settle(_:)`` once per batch that writes file rows, after the batch's
/// files were read and before their rows are written, with the batch's outside edits. The
/// ledger records them and answers with the provenance to write, read from a history that
/// holds every change notes made to the bytes the batch read (docs/decisions.md, "The index
/// is a cache").
public protocol ChangeLedger: Sendable {
    func settle(_ edits: [OutsideEdit]) -> any ProvenanceLookup
}

/// The effective provenance (docs/spec.md §3.1) of a file's bytes: what its front matter
/// states, corrected by what the change history says about that version.
public protocol ProvenanceLookup: Sendable {
    /// `stated` is the front matter's provenance, `version` the bytes' 16-hex-digit
    /// version, `mtime` the file's mtime in seconds.
    func effective(path: String, stated: Provenance, version: String, mtime: Double) -> Provenance
}

/// No history (an index opened on its own, as tests and the fuzzer do): the front matter's
/// provenance, completed from the file's mtime.
struct StatedProvenance: ProvenanceLookup, ChangeLedger {
    func effective(path: String, stated: Provenance, version: String, mtime: Double) -> Provenance {
        stated.effective(mtimeSeconds: mtime)
    }

    func settle(_ edits: [OutsideEdit]) -> any ProvenanceLookup { self }
}
