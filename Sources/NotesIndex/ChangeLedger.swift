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
    /// Called once after a refresh wrote its changes, with the known files it found removed
    /// or moved (the ledger leaves out those notes itself removed or moved).
    func noteRemovals(_ removals: [OutsideRemoval])
}

extension ChangeLedger {
    public func noteRemovals(_ removals: [OutsideRemoval]) {}
}
