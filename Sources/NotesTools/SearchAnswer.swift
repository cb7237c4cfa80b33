import Foundation
import NotesCore
import NotesIndex

/// The search tool's answer: the search's results with each hit made compact for a model's
/// context, unless the call asks for `detail` (the full hit: provenance with times, size,
/// kind, up to 3 snippets with their match spans; the meaning side's model and passage
/// count). The query is not echoed back.
///
/// A compact hit is who last changed the file as `by` (`created_by` only when someone else
/// made it), the title only when it is not the file's name, `matched_by` only when one side
/// alone found it (`meaning` or `words`; both is the usual case), and its best snippet: `line`,
/// `section` (unless the title's own or the line's own heading) and `text`, the file's line
/// as written — an exact excerpt around the match when the line is long (``SourceQuote``),
/// so that it can be passed back as `edit_file`'s `old_text` (docs/decisions.md D255).
struct SearchAnswer: Encodable {
    let results: SearchResults
    let detail: Bool
    let hits: [CompactHit]

    struct CompactHit: Encodable {
        let path: String
        let title: String?
        let score: Double?
        let version: String
        let by: String
        let createdBy: String?
        let missing: [String]?
        let matchedBy: String?
        /// The best snippet: its line, its section (unless the title's), its text as quoted.
        let line: Int?
        let section: String?
        let text: String?
        /// False when the text occurs more than once in the file; absent when once.
        let unique: Bool?
        /// False when the text is the index's plain text of the line (the line could not be
        /// quoted: the file changed since, or is too large to read); absent when quoted.
        let quoted: Bool?

        enum CodingKeys: String, CodingKey {
            case path, title, score, version, by, missing, line, section, text, unique, quoted
            case createdBy = "created_by", matchedBy = "matched_by"
        }
    }

    /// The most characters of a long line a hit quotes: about 20 words around the match
    /// (docs/decisions.md D255).
    static let quoteLength = 120

    /// - Parameter file: a hit's file (nil when it cannot be read).
    init(_ results: SearchResults, detail: Bool, file: (SearchHit) -> QuotedFile?) {
        self.results = results
        self.detail = detail
        guard !detail else {
            hits = []
            return
        }
        hits = results.hits.map { hit in
            let last = hit.provenance.lastModifiedBy?.rawValue ?? "user"
            let created = hit.provenance.createdBy?.rawValue ?? "user"
            let best = hit.snippets.first
            let quote = best.flatMap { snippet in
                file(hit).flatMap {
                    SourceQuote.quote(snippet, in: $0, maxLength: Self.quoteLength)
                }
            }
            // The title's own section goes without saying, as does a heading's own.
            let section = best.flatMap {
                $0.section.isEmpty || $0.section == hit.title || $0.section == $0.text
                    ? nil : $0.section
            }
            return CompactHit(
                path: hit.path, title: ListedEntry.title(hit.title, of: hit.path),
                score: hit.score, version: hit.version, by: last,
                createdBy: created == last ? nil : created,
                missing: hit.missing,
                matchedBy: hit.matchedBy == .both ? nil : hit.matchedBy?.rawValue,
                line: quote?.line ?? best?.line, section: section,
                text: quote?.text ?? best?.text, unique: quote?.unique == false ? false : nil,
                quoted: best != nil && quote == nil ? false : nil)
        }
    }

    enum CodingKeys: String, CodingKey {
        case total, totalAtLeast = "total_at_least", hits, matching, words, mode, semantic, next
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(results.total, forKey: .total)
        try c.encodeIfPresent(results.totalAtLeast, forKey: .totalAtLeast)
        try c.encodeIfPresent(results.matching, forKey: .matching)
        try c.encodeIfPresent(results.words, forKey: .words)
        try c.encode(results.mode, forKey: .mode)
        if detail {
            try c.encodeIfPresent(results.semantic, forKey: .semantic)
        } else if let coverage = results.semantic {
            // How far the embedding got; the model and passage count only with detail.
            try c.encode(
                ["embedded_files": coverage.embeddedFiles, "files": coverage.files],
                forKey: .semantic)
        }
        if detail {
            try c.encode(results.hits, forKey: .hits)
        } else {
            try c.encode(hits, forKey: .hits)
        }
        if results.total > results.hits.count {
            try c.encode(
                (results.totalAtLeast == true ? "at least " : "")
                    + "\(results.total - results.hits.count) more file(s) match: raise limit, or narrow with path, tags or kind",
                forKey: .next)
        } else if results.hits.isEmpty {
            // Zero hits is not proof that nothing is written about it.
            let byWords =
                results.mode == .lexical && results.semantic == nil
                ? " (this search was by words only)" : ""
            try c.encode(
                "no note matched\(byWords): try other or fewer words, drop filters, or browse with list_files before writing a new note",
                forKey: .next)
        }
    }
}
