import Foundation

/// Turns query terms into an FTS5 MATCH expression that can never be a syntax error:
/// every term is a quoted string (inner quotes doubled, NUL removed, CJK separated), so
/// user text never reaches FTS5 as operators (docs/spec.md §4.1). Precedence is explicit:
/// `a b OR c -d` matches the files holding `"a"` and (`"b"` or `"c"`), each in any of
/// their sections, minus the files matching `"d"`.
enum FTSExpression {
    /// The expression for the positive terms, or nil when there is none. Negative terms
    /// are applied per file (see ``exclusion(for:)``): `whale -Ahab` drops every file that
    /// mentions Ahab anywhere, not only its sections that do.
    ///
    /// The positive terms must all match in the file, not in one section (``required(for:)``):
    /// with several groups, this expression matches the sections holding any of them, the
    /// ones ranked and shown, and the filter keeps the files that hold every group.
    static func match(for terms: [QueryTerm]) -> String? {
        let groups = Self.groups(terms)
        guard !groups.isEmpty else { return nil }
        return groups.count == 1
            ? groups[0] : groups.map { "(" + $0 + ")" }.joined(separator: " OR ")
    }

    /// With more than one group of positive terms (`a b OR c` has two), an expression per
    /// group that a file must match in one of its sections; nil otherwise.
    static func required(for terms: [QueryTerm]) -> [String]? {
        let groups = Self.groups(terms)
        return groups.count > 1 ? groups : nil
    }

    /// The positive terms ANDed in groups of ORed terms: `a b OR c` is `"a"`, `("b" OR "c")`.
    private static func groups(_ terms: [QueryTerm]) -> [String] {
        var groups: [[String]] = []
        for term in terms where !term.negated {
            let rendered = render(term)
            if term.orWithPrevious, !groups.isEmpty {
                groups[groups.count - 1].append(rendered)
            } else {
                groups.append([rendered])
            }
        }
        return groups.map { $0.count == 1 ? $0[0] : "(" + $0.joined(separator: " OR ") + ")" }
    }

    /// An expression matching a section that holds any of `terms` (a plain-words query):
    /// phrase i of the expression is term i, as `notes_matched` reports them.
    static func anyOf(_ terms: [QueryTerm]) -> String {
        terms.map(render).joined(separator: " OR ")
    }

    /// An expression matching any negative term: files with a matching section are excluded.
    static func exclusion(for terms: [QueryTerm]) -> String? {
        let negatives = terms.filter(\.negated).map { term -> String in
            var positive = term
            positive.negated = false
            return render(positive)
        }
        return negatives.isEmpty ? nil : negatives.joined(separator: " OR ")
    }

    static func render(_ term: QueryTerm) -> String {
        let cleaned = FTSText.prepare(
            String(term.text.unicodeScalars.filter { $0.value != 0 }.map(Character.init)))
        // Doubled per scalar, not per Character: a quote followed by a combining mark is one
        // Character, which a Character-level replace skips (found by the query fuzzer).
        var escaped = String.UnicodeScalarView()
        for scalar in cleaned.unicodeScalars {
            escaped.append(scalar)
            if scalar == "\"" { escaped.append(scalar) }
        }
        var quoted = "\"" + String(escaped) + "\""
        if term.form == .prefix { quoted += "*" }
        if let column = term.column { quoted = column + " : " + quoted }
        return quoted
    }
}
