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
    /// Set when the path's policy turned the change into a proposal.
    public var proposal: String?
}
