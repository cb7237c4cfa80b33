import NotesCore

/// What the guard decides for a change (docs/spec.md §6.2).
enum GuardDecision {
    /// Write the bytes the call computed.
    case write
    /// Write these bytes instead: the call's text merged with the person's edits.
    case merge([UInt8])
    /// Store these bytes as a proposal for the person to review (``NoteStore/propose``),
    /// based on version `base`, saying why.
    case propose([UInt8], base: String?, reason: String)
    /// Change nothing and answer with this error.
    case refuse(NotesError)
}
