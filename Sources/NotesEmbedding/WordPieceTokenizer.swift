import Foundation

/// BERT's tokenizer: the basic tokenizer (clean the text, CJK ideographs apart, accents
/// stripped, lower-cased, split at whitespace and punctuation) followed by WordPiece
/// (greedy longest match from the left, `##` for pieces inside a word, `[UNK]` for a word
/// that cannot be spelled or is longer than 100 characters).
///
/// It gives the same ids as the Hugging Face "fast" tokenizer (`BertNormalizer` +
/// `BertPreTokenizer` + `WordPiece`) that sentence-transformers uses; the fixture in
/// Tests/Fixtures/embedding checks that. One known difference: characters that the Rust
/// tokenizer's older Unicode tables call unassigned (newer emoji) are dropped there and
/// become `[UNK]` here.
///
/// The work is streamed: `pieces(_:limit:)` stops reading the text once it has `limit`
/// pieces, so a 50 MB section costs no more than its first few hundred words.
public struct WordPieceTokenizer: Sendable {
    /// How many distinct pieces vocab.txt holds.
    public var pieceCount: Int { pieces.count }
    public let clsID: Int32
    public let sepID: Int32
    public let unknownID: Int32
    public let padID: Int32
    /// Lower-case and strip accents (uncased BERT models).
    public let lowercase: Bool
    /// Longer words become one `[UNK]`.
    public let maxCharactersPerWord: Int

    /// Word-initial pieces and `##` pieces.
    private let pieces: PieceTable
    /// The longest piece, in Unicode scalars: no longer match is tried.
    private var longestPiece: Int { pieces.longestPiece }
    /// Special tokens matched verbatim in the raw text (the HF tokenizer's added tokens).
    private let specials: [(text: String, id: Int32)]

    /// A tokenizer over `tokens` (the lines of vocab.txt: the id is the line number).
    public init(tokens: [String], lowercase: Bool = true, maxCharactersPerWord: Int = 100)
        throws(EmbeddingError)
    {
        var text: [UInt8] = []
        var lines: [Range<Int>] = []
        for token in tokens {
            let start = text.count
            text.append(contentsOf: token.utf8)
            lines.append(start..<text.count)
        }
        let table = text.withUnsafeBufferPointer { PieceTable(text: $0, lines: lines) }
        try self.init(
            pieces: table, lowercase: lowercase, maxCharactersPerWord: maxCharactersPerWord)
    }

    /// Reads vocab.txt (one piece per line).
    public init(vocabularyFile url: URL, lowercase: Bool = true) throws(EmbeddingError) {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw EmbeddingError("cannot read \(url.path)", hint: "run `notes model install`")
        }
        guard String(validating: data, as: UTF8.self) != nil else {
            throw EmbeddingError(
                "\(url.lastPathComponent) is not UTF-8 text",
                hint: "reinstall the model: `notes model install`")
        }
        let table = data.withUnsafeBytes { raw -> (PieceTable, Int) in
            let text = raw.bindMemory(to: UInt8.self)
            var lines: [Range<Int>] = []
            lines.reserveCapacity(32_768)
            var start = 0
            for i in 0..<text.count where text[i] == UInt8(ascii: "\n") {
                lines.append(start..<(i > start && text[i - 1] == UInt8(ascii: "\r") ? i - 1 : i))
                start = i + 1
            }
            if start < text.count { lines.append(start..<text.count) }
            return (PieceTable(text: text, lines: lines), lines.count)
        }
        guard table.1 > 5 else {
            throw EmbeddingError(
                "\(url.lastPathComponent) is truncated (\(table.1) lines)",
                hint: "reinstall the model: `notes model install`")
        }
        try self.init(pieces: table.0, lowercase: lowercase)
    }

    private init(pieces: PieceTable, lowercase: Bool, maxCharactersPerWord: Int = 100)
        throws(EmbeddingError)
    {
        func id(_ name: String) throws(EmbeddingError) -> Int32 {
            guard let id = pieces.id(name) else {
                throw EmbeddingError(
                    "vocab.txt has no \(name) token",
                    hint: "reinstall the model: `notes model install`")
            }
            return id
        }
        self.pieces = pieces
        self.clsID = try id("[CLS]")
        self.sepID = try id("[SEP]")
        self.unknownID = try id("[UNK]")
        self.padID = try id("[PAD]")
        self.lowercase = lowercase
        self.maxCharactersPerWord = maxCharactersPerWord
        self.specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].compactMap { name in
            pieces.id(name).map { (name, $0) }
        }
    }

    /// `[CLS] pieces… [SEP]`, the pieces cut so that the whole is at most `maxLength` ids.
    public func encode(_ text: String, maxLength: Int) -> [Int32] {
        let room = max(0, maxLength - 2)
        var ids: [Int32] = [clsID]
        ids.reserveCapacity(min(room, text.utf8.count) + 2)
        appendPieces(of: text, limit: room, to: &ids)
        ids.append(sepID)
        return ids
    }

    /// The WordPiece ids of `text`, without `[CLS]`/`[SEP]`, at most `limit` of them.
    public func pieces(_ text: String, limit: Int = .max) -> [Int32] {
        var ids: [Int32] = []
        appendPieces(of: text, limit: limit, to: &ids)
        return ids
    }

    /// The words of the basic tokenizer (before WordPiece), for tests and debugging.
    public func basicTokens(_ text: String) -> [String] {
        var words: [String] = []
        var normalizer = Normalizer(lowercase: lowercase)
        forEachWord(in: text, normalizer: &normalizer) { word in
            var s = String()
            s.unicodeScalars.append(contentsOf: word)
            words.append(s)
            return true
        } special: { id in
            words.append(specials.first { $0.id == id }?.text ?? "?")
            return true
        }
        return words
    }

    // MARK: - The work

    private func appendPieces(of text: String, limit: Int, to ids: inout [Int32]) {
        guard limit > 0 else { return }
        let start = ids.count
        var normalizer = Normalizer(lowercase: lowercase)
        forEachWord(in: text, normalizer: &normalizer) { word in
            wordPieces(word, limit: limit - (ids.count - start), into: &ids)
            return ids.count - start < limit
        } special: { id in
            ids.append(id)
            return ids.count - start < limit
        }
    }

    /// Calls `body` with each word of the basic tokenizer; stops when it returns false.
    /// Special tokens written verbatim (`[SEP]`) are passed to `special`.
    private func forEachWord(
        in text: String, normalizer: inout Normalizer,
        _ body: ([Unicode.Scalar]) -> Bool, special: (Int32) -> Bool
    ) {
        if text.utf8.contains(UInt8(ascii: "[")) {
            // Split out the added tokens first, as the HF tokenizer does (matched on the raw text).
            var rest = Substring(text)
            while let (range, id) = firstSpecial(in: rest) {
                if !basicWords(rest[..<range.lowerBound], normalizer: &normalizer, body) { return }
                if !special(id) { return }
                rest = rest[range.upperBound...]
            }
            _ = basicWords(rest, normalizer: &normalizer, body)
        } else {
            _ = basicWords(Substring(text), normalizer: &normalizer, body)
        }
    }

    private func firstSpecial(in text: Substring) -> (Range<Substring.Index>, Int32)? {
        var best: (Range<Substring.Index>, Int32)?
        for (name, id) in specials {
            if let range = text.range(of: name),
                best.map({ range.lowerBound < $0.0.lowerBound }) ?? true
            {
                best = (range, id)
            }
        }
        return best
    }

    /// The basic tokenizer over one stretch of text; false when `body` asked to stop.
    private func basicWords(
        _ text: Substring, normalizer: inout Normalizer, _ body: ([Unicode.Scalar]) -> Bool
    ) -> Bool {
        var word: [Unicode.Scalar] = []
        word.reserveCapacity(32)
        func flush() -> Bool {
            guard !word.isEmpty else { return true }
            defer { word.removeAll(keepingCapacity: true) }
            return body(word)
        }
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                // ASCII: no accents; control characters other than tab/newline/CR are dropped.
                if v == 0x20 || v == 0x09 || v == 0x0A || v == 0x0D {
                    if !flush() { return false }
                } else if v < 0x20 || v == 0x7F {
                    continue
                } else if Self.isASCIIPunctuation(v) {
                    if !flush() { return false }
                    if !body([scalar]) { return false }
                } else {
                    word.append(
                        lowercase && v >= 0x41 && v <= 0x5A ? Unicode.Scalar(v + 32)! : scalar)
                }
                continue
            }
            if v == 0xFFFD || Self.isControl(scalar) { continue }
            if scalar.properties.isWhitespace {
                if !flush() { return false }
                continue
            }
            if Self.isCJK(v) {
                if !flush() { return false }
                let normalized = normalizer.normalize(scalar)
                if !normalized.isEmpty, !body(normalized) { return false }
                continue
            }
            for n in normalizer.normalize(scalar) {
                if Self.isPunctuation(n) {
                    if !flush() { return false }
                    if !body([n]) { return false }
                } else {
                    word.append(n)
                }
            }
        }
        return flush()
    }

    /// WordPiece over one word: greedy longest match; the whole word is `[UNK]` when some
    /// part of it matches no piece.
    private func wordPieces(_ word: [Unicode.Scalar], limit: Int, into ids: inout [Int32]) {
        guard word.count <= maxCharactersPerWord else {
            ids.append(unknownID)
            return
        }
        let mark = ids.count
        var start = 0
        var key: [UInt8] = []
        while start < word.count {
            var end = min(word.count, start + longestPiece)
            var found: Int32?
            while end > start {
                key.removeAll(keepingCapacity: true)
                for scalar in word[start..<end] { key.append(contentsOf: UTF8.encode(scalar)!) }
                if let id = key.withUnsafeBufferPointer({ pieces.id($0, continuing: start > 0) }) {
                    found = id
                    break
                }
                end -= 1
            }
            guard let id = found else {
                ids.removeSubrange(mark...)
                ids.append(unknownID)
                return
            }
            ids.append(id)
            start = end
        }
        if ids.count - mark > limit { ids.removeSubrange((mark + limit)...) }
    }

    // MARK: - Character classes (as the HF BertNormalizer / BertPreTokenizer define them)

    static func isASCIIPunctuation(_ v: UInt32) -> Bool {
        (v >= 33 && v <= 47) || (v >= 58 && v <= 64) || (v >= 91 && v <= 96)
            || (v >= 123 && v <= 126)
    }

    /// Control characters: categories Cc, Cf, Cn, Co, Cs, except tab, newline and return.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return false
        default: break
        }
        switch scalar.properties.generalCategory {
        case .control, .format, .unassigned, .privateUse, .surrogate: return true
        default: return false
        }
    }

    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return isASCIIPunctuation(scalar.value) }
        switch scalar.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
            .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// CJK ideographs (not Hangul, kana): each becomes a word of its own.
    static func isCJK(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v)
            || (0x20000...0x2A6DF).contains(v)
            || (0x2A700...0x2B73F).contains(v) || (0x2B740...0x2B81F).contains(v)
            || (0x2B920...0x2CEAF).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0x2F800...0x2FA1F).contains(v)
    }
}

/// NFD, nonspacing marks removed, lower-cased (for uncased models), for one non-ASCII
/// scalar; results kept for the rest of the text.
struct Normalizer {
    let lowercase: Bool
    private var cache: [UInt32: [Unicode.Scalar]] = [:]

    init(lowercase: Bool) { self.lowercase = lowercase }

    mutating func normalize(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        guard lowercase else { return [scalar] }
        if let known = cache[scalar.value] { return known }
        var out: [Unicode.Scalar] = []
        let decomposed = String(Character(scalar)).decomposedStringWithCanonicalMapping
        for d in decomposed.unicodeScalars where d.properties.generalCategory != .nonspacingMark {
            let lower = d.properties.lowercaseMapping
            if lower.unicodeScalars.count == 1, lower.unicodeScalars.first == d {
                out.append(d)
            } else {
                out.append(contentsOf: lower.unicodeScalars)
            }
        }
        cache[scalar.value] = out
        return out
    }
}
