/// Text as it goes into (and is shown from) the FTS5 table.
///
/// FTS5's unicode61 tokenizer keeps a run of CJK characters as one token, so `后台执行`
/// inside a sentence could never be found. Before indexing (and in queries), a ZERO WIDTH
/// SPACE is put between adjacent CJK characters: each becomes a token, and a query for a
/// run of them becomes a phrase, which finds any substring (SPEC §4.1). The marks are
/// removed again before text is shown.
enum FTSText {
    static let separator: Unicode.Scalar = "\u{200B}"

    /// Whether a scalar is Han, Hiragana, Katakana, Hangul or a CJK symbol/fullwidth form.
    @inline(__always)
    static func isCJK(_ v: UInt32) -> Bool {
        (0x2E80...0x9FFF).contains(v) || (0xAC00...0xD7AF).contains(v) || (0xF900...0xFAFF).contains(v)
            || (0xFF00...0xFFEF).contains(v) || (0x20000...0x2FA1F).contains(v) || (0x1100...0x11FF).contains(v)
    }

    /// `text` with separators between adjacent CJK characters (unchanged when there are none).
    static func prepare(_ text: String) -> String {
        // Fast path: every CJK scalar is encoded with a lead byte >= 0xE1.
        guard text.utf8.contains(where: { $0 >= 0xE1 }) else { return text }
        var out = String.UnicodeScalarView()
        var previousCJK = false
        var changed = false
        for scalar in text.unicodeScalars {
            let cjk = isCJK(scalar.value)
            if cjk && previousCJK { out.append(separator); changed = true }
            out.append(scalar)
            previousCJK = cjk
        }
        return changed ? String(out) : text
    }

    /// `text` without the separators that ``prepare(_:)`` added.
    static func display(_ text: String) -> String {
        guard text.unicodeScalars.contains(separator) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar != separator { out.append(scalar) }
        return String(out)
    }

    /// Whether FTS5 (unicode61) would find at least one token in `text`.
    static func hasToken(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.isAlphabetic || $0.properties.numericType != nil || isCJK($0.value) }
    }
}
