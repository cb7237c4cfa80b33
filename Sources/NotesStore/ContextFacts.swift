import Foundation
import NotesCore

/// The facts an agent keeps in `context.md` (docs/spec.md §8.1): how a fact is written (a dated
/// bullet) and when two facts are the same (case, whitespace, punctuation, list markers and
/// the date ignored).
public enum ContextFacts {
    /// The file, at the workspace root.
    public static let path = "context.md"
    /// Where `remember` files a fact when no section is given.
    public static let defaultSection = "Learned"
    /// What a new context.md starts with.
    public static let header =
        "# Context\n\nWhat the agent has learned about the person and their work, one dated fact per line.\n"
    /// Longest fact accepted, in bytes.
    public static let maxFactBytes = 2_000

    /// One line: the fact with its whitespace collapsed.
    public static func clean(_ fact: String) -> String {
        fact.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `- 2026-11-21: Prefers British spelling`.
    public static func bullet(_ fact: String, date: String) -> String {
        "- \(date): \(clean(fact))"
    }

    /// The comparable form of a fact or of a line of context.md.
    public static func normalised(_ text: String) -> String {
        var rest = Substring(text).drop { $0 == " " || $0 == "\t" }
        // A list marker: -, *, + or "1." / "1)".
        if let first = rest.first, "-*+".contains(first), rest.dropFirst().first == " " {
            rest = rest.dropFirst(2)
        } else if let digits = Optional(rest.prefix { $0.isASCII && $0.isNumber }), !digits.isEmpty,
            let after = rest.dropFirst(digits.count).first, after == "." || after == ")"
        {
            rest = rest.dropFirst(digits.count + 1)
        }
        rest = rest.drop { $0 == " " }
        // A leading date "2026-11-21:" or "2026-11-21 —".
        if rest.count >= 10, Timestamp.parse(String(rest.prefix(10))) != nil {
            rest = rest.dropFirst(10).drop {
                $0 == ":" || $0 == " " || $0 == "-" || $0 == "—" || $0 == "–"
            }
        }
        var out = ""
        var pendingSpace = false
        for scalar in rest.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                if pendingSpace && !out.isEmpty { out.append(" ") }
                pendingSpace = false
                out.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            } else if CharacterSet.whitespacesAndNewlines.contains(scalar)
                || CharacterSet.punctuationCharacters.contains(scalar)
                || CharacterSet.symbols.contains(scalar)
            {
                pendingSpace = true
            }
        }
        return out
    }

    /// Whether `bytes` (context.md) already holds `fact` on one of its lines.
    public static func contains(_ fact: String, in bytes: [UInt8]) -> Bool {
        matching(fact, in: bytes) != nil
    }

    /// The line of `bytes` (context.md) that already says `fact`: the same words (see
    /// ``normalised(_:)``) on any line, else a list item that says it in other words
    /// (``similarity(_:_:)`` at least ``nearDuplicateThreshold``), the most similar first.
    public static func matching(_ fact: String, in bytes: [UInt8]) -> String? {
        let wanted = normalised(fact)
        guard !wanted.isEmpty else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map(
            String.init)
        if let same = lines.first(where: { normalised($0) == wanted }) { return same }
        let words = Words(fact)
        var best: (line: String, score: Double)?
        for line in lines where isListItem(line) {
            let score = words.similarity(Words(line))
            if score >= nearDuplicateThreshold, score > (best?.score ?? 0) { best = (line, score) }
        }
        return best?.line
    }

    /// A list item of `bytes` that `fact`, added, should be read beside: one saying otherwise
    /// (the same content words, a negation or a number differing), else the most similar
    /// below the duplicate threshold (at least ``relatedThreshold``, negations and numbers
    /// aside). The fact is
    /// still added: only the agent or the person can tell a correction from a new fact.
    public static func neighbour(of fact: String, in bytes: [UInt8]) -> (
        line: String, contradicts: Bool
    )? {
        let words = Words(fact)
        var opposite: (line: String, score: Double)?
        var similar: (line: String, score: Double)?
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline)
        where isListItem(String(line)) {
            let other = Words(String(line))
            let text = String(line.drop { $0 == " " || $0 == "\t" })
            let plain = words.similarity(other, ignoringNegationsAndNumbers: true)
            if words.negations != other.negations || words.numbers != other.numbers,
                plain >= nearDuplicateThreshold, plain > (opposite?.score ?? 0)
            {
                opposite = (text, plain)
            }
            let best = similar?.score ?? 0
            if plain >= relatedThreshold, plain > best, opposite == nil,
                words.similarity(other) < nearDuplicateThreshold
            {
                similar = (text, plain)
            }
        }
        if let opposite { return (opposite.line, true) }
        return similar.map { ($0.line, false) }
    }

    /// How similar a fact must be to an existing one for the answer to name it (below the
    /// duplicate threshold: maybe the same fact in other words, maybe a new one).
    public static let relatedThreshold = 0.5

    /// How similar two facts must be to be one fact reworded, chosen on the labelled pairs
    /// in Tests/Fixtures/remember/near-duplicates.tsv as the lowest threshold with no
    /// different fact taken for a duplicate (docs/decisions.md).
    public static let nearDuplicateThreshold = 0.85

    /// Lexical similarity of two facts in 0...1: the Dice overlap of their content words
    /// (stemmed; function words left out), times the share of the common words that come
    /// in the same order. Facts that differ in a negation or in a number are different
    /// facts (0), however many words they share.
    public static func similarity(_ a: String, _ b: String) -> Double {
        Words(a).similarity(Words(b))
    }

    static func isListItem(_ line: String) -> Bool {
        let rest = line.drop { $0 == " " || $0 == "\t" }
        if let first = rest.first, "-*+".contains(first), rest.dropFirst().first == " " {
            return true
        }
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && [".", ")"].contains(rest.dropFirst(digits.count).first)
    }

    /// A fact's words as the similarity compares them.
    struct Words {
        /// Content words, stemmed, in order of first appearance.
        var content: [String] = []
        var negations: Set<String> = []
        var numbers: Set<String> = []

        init(_ text: String) {
            var seen = Set<String>()
            for word in normalised(text).split(separator: " ").map(String.init) {
                if ContextFacts.negations.contains(word) {
                    negations.insert(word == "t" ? "not" : word)
                    continue
                }
                if ContextFacts.functionWords.contains(word) { continue }
                if word.contains(where: \.isNumber) { numbers.insert(word) }
                let stem = ContextFacts.stem(word)
                if seen.insert(stem).inserted { content.append(stem) }
            }
        }

        func similarity(_ other: Words, ignoringNegationsAndNumbers: Bool = false) -> Double {
            guard
                ignoringNegationsAndNumbers
                    || (negations == other.negations && numbers == other.numbers)
            else { return 0 }
            let isNumber = { (word: String) in word.contains(where: \.isNumber) }
            let content =
                ignoringNegationsAndNumbers ? self.content.filter { !isNumber($0) } : self.content
            let otherContent =
                ignoringNegationsAndNumbers ? other.content.filter { !isNumber($0) } : other.content
            return Self.overlap(content, otherContent)
        }

        /// The Dice overlap of two word lists, times the share of common words in order.
        private static func overlap(_ content: [String], _ otherContent: [String]) -> Double {
            guard !content.isEmpty, !otherContent.isEmpty else { return 0 }
            let common = Set(content).intersection(otherContent)
            guard !common.isEmpty else { return 0 }
            let dice = 2 * Double(common.count) / Double(content.count + otherContent.count)
            let inOrder = ContextFacts.longestCommonSubsequence(
                content.filter(common.contains), otherContent.filter(common.contains))
            return dice * Double(inOrder) / Double(common.count)
        }
    }

    /// Words that carry no fact of their own (articles, prepositions, pronouns, auxiliaries).
    static let functionWords: Set<String> = Set(
        """
        a an the to of in on at for with by from over under into onto about as and or but then than so that this these those \
        is are was were be been being am do does did done has have had having it its their them they he she his her him i me \
        my we our us you your person s should would will shall can could may might must also every each some any all
        """.split(separator: " ").map(String.init))

    /// Words that turn a fact into its opposite (`t` is what is left of "n't").
    static let negations: Set<String> = ["not", "no", "never", "t", "nor", "without"]

    /// A light suffix-stripping stem: "summaries" and "summary", "writes" and "writing",
    /// "bulleted" and "bullet" meet.
    static func stem(_ word: String) -> String {
        guard !word.contains(where: \.isNumber) else { return word }
        var w = Array(word)
        if w.count > 4, w.suffix(3) == ["i", "e", "s"] {
            w.removeLast(2)
        } else {
            for suffix in [Array("ing"), Array("ed"), Array("es"), Array("s")]
            where w.count - suffix.count >= 3 && w.suffix(suffix.count) == suffix[...] {
                if suffix == ["s"] && w.suffix(2) == ["s", "s"] { break }
                w.removeLast(suffix.count)
                break
            }
        }
        if w.count > 3, w[w.count - 1] == w[w.count - 2], !"aeiouls".contains(w[w.count - 1]) {
            w.removeLast()
        }
        if w.count > 3, w.last == "y" { w[w.count - 1] = "i" }
        if w.count > 3, w.last == "e" { w.removeLast() }
        return String(w)
    }

    static func longestCommonSubsequence(_ a: [String], _ b: [String]) -> Int {
        guard !a.isEmpty, !b.isEmpty else { return 0 }
        var previous = [Int](repeating: 0, count: b.count + 1)
        for x in a {
            var row = [Int](repeating: 0, count: b.count + 1)
            for (j, y) in b.enumerated() {
                row[j + 1] = x == y ? previous[j] + 1 : max(previous[j + 1], row[j])
            }
            previous = row
        }
        return previous[b.count]
    }
}
