import NotesCore
import NotesDocuments

/// The result of reading one pending file.
struct ProcessedFile: Sendable {
    enum Outcome: Sendable {
        case touched
        case parsed(digest: String, document: ParsedDocument, bytes: Int, text: SearchableText)
        case listedOnly(digest: String, diagnostics: [Diagnostic])
        case vanished
    }

    var pending: PendingFile
    var outcome: Outcome
    /// Whether the agent's policy hides the file (``HiddenFiles``), decided on the parse
    /// thread rather than by the writer.
    var hidden = false
}
