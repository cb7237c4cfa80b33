import NotesCore

extension SearchQuery {
    /// The filter names of the query language.
    public static let filterKeys: Set<String> = [
        "in", "path", "tag", "by", "edited-by", "kind", "title", "created", "modified",
    ]

    /// Front-matter keys the index keeps in dedicated columns instead of the metadata table
    /// (the provenance fields, tags, title): `created_by:agent` means `by:agent`, and so on.
    public static let keyAliases: [String: String] = [
        "created_by": "by", "last_modified_by": "edited-by", "created_at": "created",
        "last_modified_at": "modified", "tags": "tag",
    ]

    /// Parses the query language (docs/spec.md §4.1). Never fails on syntax: unbalanced quotes,
    /// stray operators and FTS5 special characters are literal text. Only a filter with an
    /// impossible value (`kind:robot`, `created:>=soon`) is an `invalid_argument` error.
    ///
    /// - Parameters:
    ///   - isMetadataKey: whether a `key:value` with an unknown key names a front-matter key
    ///     present in the index; if not, `key:value` is ordinary text (e.g. `12:30`).
    ///   - pathBase: the workspace folder `in:` and `path:` are relative to (``pathBase``).
    ///   - now: the reference instant for relative dates.
    public init(
        parsing text: String, isMetadataKey: (String) -> Bool = { _ in false },
        pathBase: String = "", now: Double = Timestamp.now()
    ) throws(NotesError) {
        self.init(text: text)
        self.pathBase = pathBase
        let clipped = String(
            text.unicodeScalars.prefix(Self.maxLength).filter { $0.value >= 0x20 || $0 == "\t" })
        var negateNext = false
        var orNext = false
        for token in QueryTokenizer.tokens(clipped) {
            switch token {
            case .phrase(let phrase, let negated):
                usesOperators = true
                add(
                    QueryTerm(text: phrase, form: .phrase, negated: negated || negateNext),
                    or: &orNext)
                negateNext = false
            case .word(let word):
                if word == "OR" {
                    orNext = !terms.isEmpty
                    usesOperators = true
                    continue
                }
                if word == "AND" {
                    usesOperators = true
                    continue
                }
                if word == "NOT" {
                    negateNext = true
                    usesOperators = true
                    continue
                }
                var body = Substring(word)
                var negated = negateNext
                negateNext = false
                if body.first == "-" && body.count > 1 {
                    negated = true
                    body = body.dropFirst()
                }
                if negated { usesOperators = true }
                if let colon = body.firstIndex(of: ":"), colon != body.startIndex {
                    let written = body[..<colon].lowercased()
                    let key = Self.keyAliases[written] ?? written
                    var value = String(body[body.index(after: colon)...])
                    if value.count >= 2, let q = value.first, q == "\"" || q == "'", value.last == q
                    {
                        value = String(value.dropFirst().dropLast())
                    }
                    if !value.isEmpty && Self.isKeyShaped(key) {
                        if Self.filterKeys.contains(key) {
                            if key == "title" {
                                usesOperators = true
                                add(Self.titleTerm(value, negated: negated), or: &orNext)
                            } else {
                                try applyFilter(key: key, value: value, now: now)
                            }
                            continue
                        }
                        if isMetadataKey(key) {
                            filters.metadata.append(MetadataFilter(key: key, value: value))
                            continue
                        }
                    }
                }
                if body.hasSuffix("*") {
                    let stem = String(body).trimmingSuffix("*")
                    if !stem.isEmpty {
                        add(QueryTerm(text: stem, form: .prefix, negated: negated), or: &orNext)
                    }
                } else {
                    add(
                        QueryTerm(
                            text: Self.withoutPossessive(Self.withoutEndPunctuation(body)),
                            form: .word, negated: negated),
                        or: &orNext)
                }
            }
        }
    }

    /// `of?` → `of`, `(decline.)` → `decline`: a question's last word is the word (a stop
    /// word too), not a word of its own with its marks. A word of marks alone stays.
    static func withoutEndPunctuation(_ word: Substring) -> Substring {
        let end = word.reversed().drop { "?!.,;:)]".contains($0) }.count
        let kept = word.prefix(end).drop { "([".contains($0) }
        return kept.isEmpty ? word : kept
    }

    /// `Ahab's` → `Ahab`: the tokenizer splits at the apostrophe, so the word would be the
    /// phrase "ahab s", which "Ahab, has lost a leg" does not hold.
    static func withoutPossessive(_ word: Substring) -> String {
        for suffix in ["'s", "’s", "'S", "’S"]
        where word.count > suffix.count + 1 && word.hasSuffix(suffix) {
            return String(word.dropLast(suffix.count))
        }
        return String(word)
    }

    private mutating func add(_ term: QueryTerm, or: inout Bool) {
        guard terms.count < Self.maxTerms, FTSText.hasToken(term.text) else {
            or = false
            return
        }
        var term = term
        term.orWithPrevious = or && !term.negated && terms.last.map { !$0.negated } == true
        or = false
        terms.append(term)
    }

    /// `title:word`, `title:"two words"` or `title:pre*`: a term restricted to the title column.
    private static func titleTerm(_ value: String, negated: Bool) -> QueryTerm {
        if value.contains(" ") {
            return QueryTerm(text: value, form: .phrase, negated: negated, column: "title")
        }
        if value.hasSuffix("*") {
            return QueryTerm(
                text: value.trimmingSuffix("*"), form: .prefix, negated: negated, column: "title")
        }
        return QueryTerm(text: value, form: .word, negated: negated, column: "title")
    }

    private static func isKeyShaped(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first, first.properties.isAlphabetic || first == "_"
        else { return false }
        return key.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
                || $0 == "."
        }
    }

    /// Applies one filter written as `key:value` (also used for CLI flags and tool arguments).
    public mutating func applyFilter(key: String, value: String, now: Double = Timestamp.now())
        throws(NotesError)
    {
        switch key {
        case "in":
            let folder = try WorkspacePath.normalize(value, from: pathBase)
            filters.folders.append(folder)
        case "path":
            let glob = value.hasPrefix("./") ? String(value.dropFirst(2)) : value
            filters.pathGlobs.append(
                pathBase.isEmpty ? glob : try WorkspacePath.normalize(glob, from: pathBase))
        case "tag":
            filters.tags.append(value.hasPrefix("#") ? String(value.dropFirst()) : value)
        case "by", "edited-by":
            guard let actor = Actor(rawValue: value.lowercased()) else {
                throw NotesError(
                    .invalidArgument, "unknown actor '\(value)' in \(key):\(value)",
                    hint: "use \(key):agent or \(key):user")
            }
            if key == "by" { filters.createdBy = actor } else { filters.editedBy = actor }
        case "kind":
            for name in value.split(separator: ",") {
                guard let kind = DocumentKind(rawValue: name.lowercased()) else {
                    throw NotesError(
                        .invalidArgument, "unknown kind '\(name)' in kind:\(value)",
                        hint: "use research, journal, chat, context or note")
                }
                filters.kinds.append(kind)
            }
        case "created", "modified":
            guard let parsed = DateFilter.parse(value, now: now) else {
                throw NotesError(
                    .invalidArgument, "cannot read the date in \(key):\(value)",
                    hint:
                        "use e.g. \(key):2026-01-01.. (that day or later), \(key):..2026-01-31, or \(key):7d (the last 7 days)"
                )
            }
            if key == "created" { filters.created += parsed } else { filters.modified += parsed }
        case "title":
            var or = false
            add(Self.titleTerm(value, negated: false), or: &or)
        default:
            filters.metadata.append(MetadataFilter(key: key, value: value))
        }
    }
}

extension String {
    func trimmingSuffix(_ character: Character) -> String {
        var s = Substring(self)
        while s.last == character { s = s.dropLast() }
        return String(s)
    }
}

/// Splits query text into words and quoted phrases. A quote without its closing partner is
/// dropped (literal text); `key:"a b"` and `key:'a b'` keep their quoted value in one word.
enum QueryTokenizer {
    enum Token: Equatable {
        case word(String)
        case phrase(String, negated: Bool)
    }

    static func tokens(_ text: String) -> [Token] {
        var tokens: [Token] = []
        let chars = Array(text)
        var i = 0
        func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" }
        while i < chars.count {
            if isSpace(chars[i]) {
                i += 1
                continue
            }
            // A phrase: "…" or -"…".
            let negated = chars[i] == "-" && i + 1 < chars.count && chars[i + 1] == "\""
            let quoteAt = negated ? i + 1 : i
            if chars[quoteAt] == "\"" {
                if let close = chars[(quoteAt + 1)...].firstIndex(of: "\"") {
                    tokens.append(.phrase(String(chars[(quoteAt + 1)..<close]), negated: negated))
                    i = close + 1
                } else {
                    i = quoteAt + 1  // an unbalanced quote is ignored
                }
                continue
            }
            var word = ""
            while i < chars.count && !isSpace(chars[i]) {
                let c = chars[i]
                if c == "\"" || c == "'", word.hasSuffix(":"),
                    let close = chars[(i + 1)...].firstIndex(of: c)
                {
                    word += String(chars[i...close])
                    i = close + 1
                    continue
                }
                if c == "\"" { break }  // a quote starts a new token
                word.append(c)
                i += 1
            }
            if !word.isEmpty { tokens.append(.word(word)) }
        }
        return tokens
    }
}
