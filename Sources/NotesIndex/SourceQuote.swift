import Foundation
import NotesCore

/// A snippet as it stands in the file: an exact excerpt of one source line, so that an agent
/// can pass it back as `edit_file`'s `old_text` (issue 32, item 10). A ``Snippet`` is the
/// indexed plain text of its line (Markdown's markup left out, "…" where it was cut); the
/// quote finds the same words in the file's bytes and keeps them as written there.
public struct SourceQuote: Sendable, Equatable {
    /// 1-based line of the file the text is on.
    public var line: Int
    /// An exact part of that line: all of it without its indentation, or, when the line is
    /// long, the words around the match cut at spaces.
    public var text: String
    /// Whether `text` occurs once in the file (when not, `old_text` needs more around it).
    public var unique: Bool

    /// How many lines around the snippet's line its words are looked for, nearest first: a
    /// chat message's snippet points at the line of its role, its text is a line or a few
    /// away.
    static let reach = 40

    /// The quote of `snippet` from `file` (the file's bytes, as the search read them), at most
    /// `maxLength` characters unless a longer part of the line is needed to be unique; nil
    /// when its words are not on its line or the few around it (the file changed since),
    /// or the line is not UTF-8.
    public static func quote(_ snippet: Snippet, in file: QuotedFile, maxLength: Int)
        -> SourceQuote?
    {
        let needles = needles(of: snippet)
        guard !needles.isEmpty, snippet.line >= 1 else { return nil }
        return file.bytes.withUnsafeBufferPointer { bytes -> SourceQuote? in
            // The lines from `reach` above the snippet's to `reach` below it.
            let first = max(1, snippet.line - reach)
            let checkpoint = file.checkpoint(before: first)
            guard
                var start = start(
                    ofLine: first, in: bytes, from: (line: checkpoint.line, at: checkpoint.at))
            else { return nil }
            var number = first
            var lines: [Range<Int>] = []  // lines[n - first]: line n
            lines.reserveCapacity(2 * reach + 1)
            while number <= snippet.line + reach && start <= bytes.count {
                let newline = find(0x0A, in: bytes, from: start)
                var end = newline ?? bytes.count
                if end > start && bytes[end - 1] == 0x0D { end -= 1 }
                lines.append(start..<end)
                guard let newline else { break }
                start = newline + 1
                number += 1
            }
            func line(_ n: Int) -> (range: Range<Int>, text: String)? {
                guard n >= first, n - first < lines.count else { return nil }
                let range = lines[n - first]
                return String(
                    validating: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self
                )
                .map { (range, $0) }
            }
            // Nearest first: the words as they are (bytes compared), then in any case or accent.
            for exact in [true, false] {
                for distance in 0...reach {
                    for n in [snippet.line + distance, snippet.line - distance]
                    where distance > 0 || n == snippet.line {
                        if exact {
                            guard n >= first, n - first < lines.count,
                                let found = needles.lazy.compactMap({
                                    offset(of: $0, in: bytes, lines[n - first])
                                }).first,
                                let (range, text) = line(n),
                                let before = String(
                                    validating: UnsafeBufferPointer(
                                        rebasing: bytes[range.lowerBound..<found.at]),
                                    as: UTF8.self)
                            else { continue }
                            return quote(
                                text, anchor: (before.count, found.needle.count), number: n,
                                file: file, maxLength: maxLength)
                        }
                        guard let (_, text) = line(n),
                            let anchor = anchorIgnoringCase(of: needles, in: text)
                        else { continue }
                        return quote(
                            text, anchor: anchor, number: n, file: file, maxLength: maxLength)
                    }
                }
            }
            return nil
        }
    }

    /// Where in `file[range]` the UTF-8 of `needle` first is.
    static func offset(of needle: String, in file: UnsafeBufferPointer<UInt8>, _ range: Range<Int>)
        -> (at: Int, needle: String)?
    {
        var key = needle
        return key.withUTF8 { key -> (at: Int, needle: String)? in
            guard let base = file.baseAddress, let keyBase = key.baseAddress, let first = key.first,
                key.count <= range.count
            else { return nil }
            var at = range.lowerBound
            let last = range.upperBound - key.count
            while at <= last, let hit = memchr(base + at, Int32(first), last - at + 1) {
                let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + offset, keyBase, key.count) == 0 { return (offset, needle) }
                at = offset + 1
            }
            return nil
        }
    }

    /// What to look for on the line: the matched words (the spans), or, for a snippet found
    /// by meaning or by its title (no spans), its first words.
    static func needles(of snippet: Snippet) -> [String] {
        let scalars = Array(snippet.text.unicodeScalars)
        var found: [String] = []
        for span in snippet.spans
        where span.count == 2 && span[0] < span[1] && span[1] <= scalars.count {
            let word = String(String.UnicodeScalarView(scalars[span[0]..<span[1]]))
            if !found.contains(word) { found.append(word) }
        }
        if !found.isEmpty { return found }
        let words = snippet.text.split(whereSeparator: { $0 == " " || $0 == "…" })
        return words.prefix(1).map(String.init)
    }

    /// Where on `line` the first needle is in any case or accent (in characters).
    static func anchorIgnoringCase(of needles: [String], in line: String) -> (
        at: Int, length: Int
    )? {
        for needle in needles {
            if let range = line.range(
                of: needle, options: [.caseInsensitive, .diacriticInsensitive])
            {
                return (
                    line.distance(from: line.startIndex, to: range.lowerBound),
                    line.distance(from: range.lowerBound, to: range.upperBound)
                )
            }
        }
        return nil
    }

    /// The quote of `line` around `anchor`: the widest of the windows tried that is unique,
    /// else the narrowest.
    static func quote(
        _ line: String, anchor: (at: Int, length: Int), number: Int, file: QuotedFile,
        maxLength: Int
    ) -> SourceQuote? {
        let characters = Array(line)
        var first = 0
        var last = characters.count
        while first < last && (characters[first] == " " || characters[first] == "\t") { first += 1 }
        while last > first && characters[last - 1].isWhitespace { last -= 1 }
        guard first < last else { return nil }
        var narrowest: String?
        for width in [maxLength, maxLength * 2, Int.max] {
            let text = String(window(characters, first..<last, anchor: anchor, width: width))
            if file.holdsOnce(text) {
                return SourceQuote(line: number, text: text, unique: true)
            }
            if narrowest == nil { narrowest = text }
            if width >= last - first { break }
        }
        return narrowest.map { SourceQuote(line: number, text: $0, unique: false) }
    }

    /// At most `width` characters of `line[bounds]` around the anchor, cut after a space
    /// before it and before a space after it (a line without spaces is cut where it must).
    static func window(
        _ line: [Character], _ bounds: Range<Int>, anchor: (at: Int, length: Int), width: Int
    ) -> ArraySlice<Character> {
        guard bounds.count > width else { return line[bounds] }
        let at = min(max(anchor.at, bounds.lowerBound), bounds.upperBound - 1)
        var start = max(bounds.lowerBound, at - width / 4)
        var end = min(bounds.upperBound, start + width)
        start = max(bounds.lowerBound, end - width)
        if start > bounds.lowerBound, let space = line[start..<at].firstIndex(of: " ") {
            start = space + 1
        }
        // The end: at a space, else (a long link or path) after a punctuation mark, unless
        // that would give up more than a third of the window.
        let matchEnd = min(at + anchor.length, end)
        let floor = max(matchEnd, end - width / 3)
        if end < bounds.upperBound {
            if let space = line[floor..<end].lastIndex(of: " ") {
                end = space
            } else if let mark = line[floor..<end].lastIndex(where: { $0.isPunctuation }) {
                end = mark + 1
            }
        }
        while end > start && line[end - 1].isWhitespace { end -= 1 }
        return line[start..<end]
    }

    static func find(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = bytes.baseAddress, start < bytes.count else { return nil }
        guard let hit = memchr(base + start, Int32(byte), bytes.count - start) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Where 1-based line `number` starts in `bytes` (nil past the end), counting from a line
    /// known to start at a byte (`from`, at or before it): newlines counted 32 bytes at a time,
    /// since a hit's line can be deep in a book.
    static func start(
        ofLine number: Int, in bytes: UnsafeBufferPointer<UInt8>,
        from known: (line: Int, at: Int) = (1, 0)
    ) -> Int? {
        guard let base = bytes.baseAddress else { return number == 1 ? 0 : nil }
        var left = number - known.line
        var at = known.at
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        // The newlines of eight bytes: the bytes of x that are zero.
        func newlines(_ offset: Int) -> Int {
            let x = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self) ^ (ones &* 0x0A)
            return (~(((x & low7) &+ low7) | x | low7)).nonzeroBitCount
        }
        while left > 0 && at + 32 <= bytes.count {
            let count = newlines(at) + newlines(at + 8) + newlines(at + 16) + newlines(at + 24)
            if count >= left { break }
            left -= count
            at += 32
        }
        while left > 0 {
            guard let newline = find(0x0A, in: bytes, from: at) else { return nil }
            at = newline + 1
            left -= 1
        }
        return at <= bytes.count ? at : nil
    }

    /// Whether `text` occurs exactly once in `file`: memchr for its least common byte (a
    /// capital, a digit or a mark rather than "e" or a space), then memcmp around it.
    static func occursOnce(
        _ text: String, in file: UnsafeBufferPointer<UInt8>,
        commonness: (UInt8) -> Int = commonness
    ) -> Bool {
        var text = text
        return text.withUTF8 { needle -> Bool in
            guard let base = file.baseAddress, let key = needle.baseAddress, !needle.isEmpty,
                needle.count <= file.count
            else { return false }
            let pick = needle.indices.min { commonness(needle[$0]) < commonness(needle[$1]) } ?? 0
            var found = 0
            var at = pick
            let last = file.count - needle.count + pick  // the last place the byte can be
            while at <= last, let hit = memchr(base + at, Int32(needle[pick]), last - at + 1) {
                let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + offset - pick, key, needle.count) == 0 {
                    found += 1
                    if found > 1 { return false }
                }
                at = offset + 1
            }
            return found == 1
        }
    }

    /// How often a byte is met in English text: a space and the common lowercase letters most.
    static func commonness(_ byte: UInt8) -> Int { commonBytes[Int(byte)] }

    static let commonBytes: [Int] = {
        let common = Array(" etaoinshrdlcumwfgypbvk,.\r\n".utf8)
        var rank = [Int](repeating: 0, count: 256)
        for (i, byte) in common.enumerated() { rank[Int(byte)] = common.count - i }
        return rank
    }()
}

/// A file's bytes as quotes are taken from them, with where every ``stride``-th line starts
/// (found in one pass when the file is read), so that a quote deep in a book does not count
/// the lines before it again.
public struct QuotedFile: Sendable {
    public let bytes: [UInt8]
    /// `checkpoints[k]`: the byte where line `k * stride + 1` starts.
    let checkpoints: [Int]
    /// How often each byte value occurs (in a sample of the file), for a large file: a
    /// quote's uniqueness is checked by its rarest byte there. Empty for a small one.
    let counts: [Int]
    static let stride = 1024
    static let large = 64 * 1024

    public init(_ bytes: [UInt8]) {
        let bytes = Self.loneCarriageReturnsAsNewlines(bytes)
        self.bytes = bytes
        var checkpoints = [0]
        var counts: [Int] = []
        if bytes.count > Self.large {
            // One byte in 16 is enough to rank them.
            counts = [Int](repeating: 0, count: 256)
            counts.withUnsafeMutableBufferPointer { counts in
                bytes.withUnsafeBufferPointer { bytes in
                    for i in Swift.stride(from: 0, to: bytes.count, by: 16) {
                        counts[Int(bytes[i])] += 1
                    }
                }
            }
            bytes.withUnsafeBufferPointer { buffer in
                while let next = SourceQuote.start(
                    ofLine: checkpoints.count * Self.stride + 1, in: buffer,
                    from: (
                        (checkpoints.count - 1) * Self.stride + 1,
                        checkpoints[checkpoints.count - 1]
                    ))
                {
                    checkpoints.append(next)
                }
            }
        }
        self.checkpoints = checkpoints
        self.counts = counts
    }

    /// `bytes` with each \r that ends a line (``LineEnds``: CR-only line endings) replaced
    /// by \n. Byte for byte, so offsets are kept, and
    /// no quote changes (a quote never spans the end of its line).
    static func loneCarriageReturnsAsNewlines(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x0D) else { return bytes }
        var lines = bytes
        for i in bytes.indices where bytes[i] == 0x0D && LineEnds.endsLine(bytes, at: i) {
            lines[i] = 0x0A
        }
        return lines
    }

    /// Whether `text` occurs exactly once in the file.
    func holdsOnce(_ text: String) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            counts.isEmpty
                ? SourceQuote.occursOnce(text, in: buffer)
                : SourceQuote.occursOnce(text, in: buffer) { counts[Int($0)] }
        }
    }

    /// The nearest line at or before `line` whose start is known.
    func checkpoint(before line: Int) -> (line: Int, at: Int) {
        let k = min((line - 1) / Self.stride, checkpoints.count - 1)
        return (k * Self.stride + 1, checkpoints[k])
    }
}
