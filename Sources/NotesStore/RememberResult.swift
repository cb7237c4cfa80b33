import Foundation
import NotesCore

/// What `remember` did.
public struct RememberResult: Codable, Sendable, Equatable {
    public var path: String
    /// context.md's version after the call.
    public var version: String?
    public var section: String
    /// The fact was already there; nothing was written.
    public var duplicate: Bool
    /// For a duplicate: the line of context.md that already says it (the same words, or
    /// the same fact reworded).
    public var matching: String?
    /// The line added (nil for a duplicate).
    public var added: String?
    /// For a fact added: a line of context.md that says the opposite (`contradicts`), or
    /// one similar enough to be the same fact reworded (`similar`): the agent decides
    /// whether the new fact replaces it.
    public var contradicts: String?
    public var similar: String?
    /// Set when the path's policy turned the change into a proposal.
    public var proposal: String?
}
