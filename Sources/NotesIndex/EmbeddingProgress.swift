import Foundation
import GRDB
import NotesCore

/// Progress of an embedding pass, for a progress bar.
public struct EmbeddingProgress: Sendable {
    /// Sections embedded so far in this pass, and how many needed it when the pass began.
    public var sectionsDone: Int
    public var sectionsTotal: Int
    /// Passages embedded so far in this pass.
    public var chunks: Int
    /// The pass's work done and in all, in estimated bytes of passage text (a section's
    /// share of its file, up to what its passages can hold): the sections go smallest file
    /// first, so their count alone would make the time left look short early on.
    public var workDone: Int = 0
    public var workTotal: Int = 0
}
