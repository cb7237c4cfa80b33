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

/// One full-text term of a query.
public struct QueryTerm: Sendable, Equatable {
    public enum Form: Sendable, Equatable {
        /// A word (matched through stemming).
        case word
        /// `prefix*`.
        case prefix
        /// `"exact phrase"`.
        case phrase
    }

    public var text: String
    public var form: Form
    /// `-word` / `NOT word`.
    public var negated = false
    /// Joined to the previous term with `OR` instead of AND.
    public var orWithPrevious = false
    /// Restricts the term to one FTS column (`title:word`).
    public var column: String?

    public init(
        text: String, form: Form, negated: Bool = false, orWithPrevious: Bool = false,
        column: String? = nil
    ) {
        self.text = text
        self.form = form
        self.negated = negated
        self.orWithPrevious = orWithPrevious
        self.column = column
    }
}

/// Field filters (docs/spec.md §4.1); each is also a CLI flag.
public struct SearchFilters: Sendable, Equatable {
    /// `in:DIR`: path prefixes (separator-aware).
    public var folders: [String] = []
    /// `path:GLOB`.
    public var pathGlobs: [String] = []
    /// `tag:T` (a tag or one below it, `tag:a` matches `a/b`).
    public var tags: [String] = []
    /// `by:agent|user`: effective `created_by`.
    public var createdBy: Actor?
    /// `edited-by:agent|user`: effective `last_modified_by`.
    public var editedBy: Actor?
    /// `kind:…` (several are ORed).
    public var kinds: [DocumentKind] = []
    /// `created:…`.
    public var created: [DateFilter] = []
    /// `modified:…`.
    public var modified: [DateFilter] = []
    /// Any other front-matter `key:value`.
    public var metadata: [MetadataFilter] = []
    /// Leaves out paths the workspace protects from agents (docs/spec.md §10): set for every search
    /// an agent makes, so a protected file never shows up in its hits.
    public var hideProtected = false

    public init() {}

    public var isEmpty: Bool { self == SearchFilters() }

    /// Whether any filter narrows the files (leaving out protected paths does not count:
    /// it is a rule of who searches, not part of what was asked).
    public var selectsFiles: Bool {
        var asked = self
        asked.hideProtected = false
        return !asked.isEmpty
    }
}

/// `key:value` on any front-matter key (case-insensitive; list values match any item).
public struct MetadataFilter: Sendable, Equatable {
    public var key: String
    public var value: String
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// A comparison of a timestamp with an instant: `>=2026-01-01`, `<7d` (within 7 days).
public struct DateFilter: Sendable, Equatable {
    public enum Comparison: String, Sendable {
        case before = "<", atOrBefore = "<=", after = ">", atOrAfter = ">="
    }
    public var comparison: Comparison
    /// Seconds since the epoch.
    public var instant: Double

    public init(comparison: Comparison, instant: Double) {
        self.comparison = comparison
        self.instant = instant
    }

    /// Parses the value of `created:` / `modified:`. A relative age (`7d`, `2w`, `3m`, `1y`,
    /// `12h`) compares ages: `<7d` and `7d` mean less than 7 days old. A bare date means that
    /// day. A range of dates needs no shell quoting: `2026-11-01..` (that day or later),
    /// `..2026-11-30` (that day or earlier), `2026-11-01..2026-11-30` (both ends included).
    public static func parse(_ raw: String, now: Double) -> [DateFilter]? {
        let parts = raw.split(separator: "..", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, !raw.hasPrefix("<"), !raw.hasPrefix(">"), !raw.hasPrefix("=") {
            let lower = parts[0]
            let upper = parts[1]
            guard !(lower.isEmpty && upper.isEmpty),
                lower.isEmpty || Timestamp.parse(String(lower)) != nil,
                upper.isEmpty || Timestamp.parse(String(upper)) != nil
            else { return nil }
            var filters: [DateFilter] = []
            if !lower.isEmpty { filters += parse(">=" + lower, now: now) ?? [] }
            if !upper.isEmpty { filters += parse("<=" + upper, now: now) ?? [] }
            return filters
        }
        var text = Substring(raw)
        var op = ""
        while let c = text.first, c == "<" || c == ">" || c == "=" {
            op.append(c)
            text = text.dropFirst()
        }
        guard !text.isEmpty else { return nil }
        let units: [Character: Double] = [
            "h": 3600, "d": 86_400, "w": 7 * 86_400, "m": 30 * 86_400, "y": 365 * 86_400,
        ]
        if let unit = text.last, let seconds = units[unit], let amount = Double(text.dropLast()),
            amount >= 0
        {
            let instant = now - amount * seconds
            // Ages compare the other way round from instants.
            switch op {
            case "", "<": return [DateFilter(comparison: .after, instant: instant)]
            case "<=": return [DateFilter(comparison: .atOrAfter, instant: instant)]
            case ">": return [DateFilter(comparison: .before, instant: instant)]
            case ">=": return [DateFilter(comparison: .atOrBefore, instant: instant)]
            default: return nil
            }
        }
        guard let instant = Timestamp.parse(String(text)) else { return nil }
        let isDay = text.count == 10
        switch op {
        case "", "=":
            return isDay
                ? [
                    DateFilter(comparison: .atOrAfter, instant: instant),
                    DateFilter(comparison: .before, instant: instant + 86_400),
                ]
                : [
                    DateFilter(comparison: .atOrAfter, instant: instant),
                    DateFilter(comparison: .atOrBefore, instant: instant),
                ]
        case "<": return [DateFilter(comparison: .before, instant: instant)]
        case "<=":
            return [
                DateFilter(comparison: .before, instant: isDay ? instant + 86_400 : instant + 0.001)
            ]
        case ">":
            return [
                DateFilter(
                    comparison: .atOrAfter, instant: isDay ? instant + 86_400 : instant + 0.001)
            ]
        case ">=": return [DateFilter(comparison: .atOrAfter, instant: instant)]
        default: return nil
        }
    }
}

/// Which sides of the index answer a search (`--mode`).
public enum SearchMode: String, Sendable, Codable, CaseIterable {
    /// By words (FTS5, bm25).
    case lexical
    /// By meaning (passage vectors).
    case semantic
    /// Both, fused by reciprocal rank.
    case hybrid
}

/// Result order (`--sort`).
public enum SearchSort: String, Sendable, CaseIterable {
    case relevance, modified, created, path, title
}

extension QueryTerm {
    /// The term as an answer names it (`words`, `missing`): without the punctuation around
    /// it that the search ignores anyway ("decline?" → "decline").
    public var shownText: String {
        let isWordCharacter: (Character) -> Bool = { $0.isLetter || $0.isNumber }
        guard let first = text.firstIndex(where: isWordCharacter),
            let last = text.lastIndex(where: isWordCharacter)
        else { return text }
        return String(text[first...last])
    }
}
