import NotesCore

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
