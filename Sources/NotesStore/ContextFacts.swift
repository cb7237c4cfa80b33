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
    public static let header = "# Context\n\nWhat the agent has learned about the person and their work, one dated fact per line.\n"
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
                  let after = rest.dropFirst(digits.count).first, after == "." || after == ")" {
            rest = rest.dropFirst(digits.count + 1)
        }
        rest = rest.drop { $0 == " " }
        // A leading date "2026-11-21:" or "2026-11-21 —".
        if rest.count >= 10, Timestamp.parse(String(rest.prefix(10))) != nil {
            rest = rest.dropFirst(10).drop { $0 == ":" || $0 == " " || $0 == "-" || $0 == "—" || $0 == "–" }
        }
        var out = ""
        var pendingSpace = false
        for scalar in rest.unicodeScalars {
            if CharacterSet.alphanumerics.contains(scalar) {
                if pendingSpace && !out.isEmpty { out.append(" ") }
                pendingSpace = false
                out.unicodeScalars.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            } else if CharacterSet.whitespacesAndNewlines.contains(scalar) || CharacterSet.punctuationCharacters.contains(scalar) || CharacterSet.symbols.contains(scalar) {
                pendingSpace = true
            }
        }
        return out
    }

    /// Whether `bytes` (context.md) already holds `fact` on one of its lines.
    public static func contains(_ fact: String, in bytes: [UInt8]) -> Bool {
        let wanted = normalised(fact)
        guard !wanted.isEmpty else { return false }
        for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) where normalised(String(line)) == wanted {
            return true
        }
        return false
    }
}

/// What `remember` did.
public struct RememberResult: Codable, Sendable, Equatable {
    public var path: String
    /// context.md's version after the call.
    public var version: String?
    public var section: String
    /// The fact was already there; nothing was written.
    public var duplicate: Bool
    /// The line added (nil for a duplicate).
    public var added: String?
    /// Set when the path's policy turned the change into a proposal.
    public var proposal: String?
}
