import NotesCore

/// A search as the user meant it (docs/spec.md §4.1): full-text terms plus field filters, a sort
/// order and a limit. Built from the query language by ``init(parsing:isMetadataKey:now:)``
/// and from CLI flags or tool arguments by setting ``filters`` directly.
public struct SearchQuery: Sendable {
    /// The text as typed.
    public var text: String
    /// Full-text terms in order.
    public var terms: [QueryTerm] = []
    public var filters = SearchFilters()
    /// The workspace folder that `in:` and `path:` values are typed relative to ("" is the
    /// root, as over MCP; the command line passes the folder it runs in: docs/cli.md "Paths").
    /// The filters themselves always hold workspace-relative paths.
    public var pathBase = ""
    public var sort: SearchSort = .relevance
    /// Maximum number of hits (files).
    public var limit: Int = 20
    /// Whether hits carry snippets (`notes search -l` needs none: it skips the highlighting).
    public var withSnippets = true
    /// Which sides answer: nil means by words and by meaning when vectors and a model are
    /// at hand, else by words.
    public var mode: SearchMode?
    /// The model that turns the query into a vector (nil: search by words only).
    public var embedder: (any TextEmbedder)?

    /// The text the meaning side embeds: the query's positive words and phrases, without
    /// filters and operators.
    public var semanticText: String {
        terms.filter { !$0.negated }.map(\.text).joined(separator: " ")
    }

    /// Whether the text used query syntax (quotes, `-word`, `NOT`, `OR`, `AND`, `title:`):
    /// such a query keeps its exact meaning and every positive term must match.
    public var usesOperators = false

    /// Whether the query is a whole question or a bag of plain words (two or more words,
    /// no operators): it ranks by how many of its words a section matches instead of
    /// requiring all of them, and its common words (``StopWords``) need not match at all.
    public var isPlainWords: Bool {
        !usesOperators && terms.count >= 2
            && terms.allSatisfy {
                !$0.negated && !$0.orWithPrevious && $0.column == nil && $0.form != .phrase
            }
    }

    /// The terms a plain-words query ranks by: its words less the common ones (all of them
    /// when every word is common).
    public var significantTerms: [QueryTerm] {
        let kept = terms.filter { !StopWords.contains($0.text) }
        return kept.isEmpty ? terms : kept
    }

    /// Most terms used from one query; the rest are ignored (guards FTS5 against huge ORs).
    public static let maxTerms = 32
    /// Longest query text considered.
    public static let maxLength = 2_000

    public init(text: String = "") { self.text = text }

    /// Whether the query has full-text terms that require a positive match.
    public var hasPositiveTerms: Bool { terms.contains { !$0.negated } }
}
