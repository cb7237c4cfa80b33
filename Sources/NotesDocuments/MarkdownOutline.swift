import CCmark
import CMarkdownArena
import Foundation
import NotesCore

/// What cmark's AST yields for one Markdown body (docs/spec.md §3.2), with lines counted in the
/// body as given (1-based). The only place in the package that touches cmark.
struct MarkdownOutline {
    /// Plain text per body line: `lines[k]` is the text of body line `k + 1`. Heading lines
    /// are empty (headings are kept in ``headings``); HTML is stripped; code kept as text.
    var lines: [String]
    var headings: [DocumentHeading] = []
    var links: [DocumentLink] = []
    var tags: [String] = []
}
