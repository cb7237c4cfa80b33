/// Text as it goes into (and is shown from) the FTS5 table.
///
/// FTS5's unicode61 tokenizer keeps a run of CJK characters as one token, so `后台执行`
/// inside a sentence could never be found. Before indexing (and in queries), a ZERO WIDTH
/// SPACE is put between adjacent CJK characters: each becomes a token, and a query for a
/// run of them becomes a phrase, which finds any substring (docs/spec.md §4.1). The marks are
/// removed again before text is shown.
enum FTSText {
    static let separator: Unicode.Scalar = "\u{200B}"

    /// Whether a scalar is Han, Hiragana, Katakana, Hangul or a CJK symbol/fullwidth form.
    @inline(__always)
    static func isCJK(_ v: UInt32) -> Bool {
        (0x2E80...0x9FFF).contains(v) || (0xAC00...0xD7AF).contains(v)
            || (0xF900...0xFAFF).contains(v)
            || (0xFF00...0xFFEF).contains(v) || (0x20000...0x2FA1F).contains(v)
            || (0x1100...0x11FF).contains(v)
    }

    /// `text` with separators between adjacent CJK characters (unchanged when there are none).
    ///
    /// Works on the UTF-8 bytes: a book full of curly quotes (lead byte 0xE2) is scanned
    /// once without decoding a `String` scalar by scalar, and copied only if it has CJK runs.
    static func prepare(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes -> String? in
            guard let first = firstCJKPair(bytes) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + bytes.count / 4)
            out.append(contentsOf: bytes[..<first])
            var index = first
            var previousCJK = true  // the scalar just before `first` is CJK
            while index < bytes.count {
                let (value, length) = scalar(at: index, in: bytes)
                let cjk = value >= 0x1100 && isCJK(value)
                if cjk && previousCJK { out.append(contentsOf: [0xE2, 0x80, 0x8B]) }
                out.append(contentsOf: bytes[index..<index + length])
                previousCJK = cjk
                index += length
            }
            return String(decoding: out, as: UTF8.self)
        } ?? text
    }

    /// The byte offset of the second scalar of the first adjacent CJK pair, if any.
    private static func firstCJKPair(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var index = 0
        var previousCJK = false
        let raw = UnsafeRawPointer(bytes.baseAddress)
        while index < bytes.count {
            // Eight ASCII bytes at a time: most text has no lead byte at all.
            if let raw, index + 8 <= bytes.count,
                raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080
                    == 0
            {
                previousCJK = false
                index += 8
                continue
            }
            let lead = bytes[index]
            if lead < 0xE1 {
                previousCJK = false
                index += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : 3
                continue
            }
            let (value, length) = scalar(at: index, in: bytes)
            let cjk = isCJK(value)
            if cjk && previousCJK { return index }
            previousCJK = cjk
            index += length
        }
        return nil
    }

    /// Decodes the scalar starting at `index` of valid UTF-8.
    @inline(__always)
    private static func scalar(at index: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (
        value: UInt32, length: Int
    ) {
        let lead = UInt32(bytes[index])
        if lead < 0x80 { return (lead, 1) }
        if lead < 0xE0 { return ((lead & 0x1F) << 6 | UInt32(bytes[index + 1] & 0x3F), 2) }
        if lead < 0xF0 {
            return (
                (lead & 0x0F) << 12 | UInt32(bytes[index + 1] & 0x3F) << 6
                    | UInt32(bytes[index + 2] & 0x3F), 3
            )
        }
        return (
            (lead & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12 | UInt32(
                bytes[index + 2] & 0x3F) << 6
                | UInt32(bytes[index + 3] & 0x3F), 4
        )
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
        text.unicodeScalars.contains {
            $0.properties.isAlphabetic || $0.properties.numericType != nil || isCJK($0.value)
        }
    }
}
