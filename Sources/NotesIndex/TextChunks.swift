import NotesCore

/// Splits a section into the passages that get one vector each: the model reads at most
/// ~256 word pieces, so a long section becomes overlapping windows of words, each with the
/// document's title and the section's heading in front (they say what the passage is about).
enum TextChunks {
    /// One passage: its text as embedded, and the line of the section it starts on (0-based).
    struct Chunk: Equatable {
        let text: String
        let line: Int
    }

    /// Words per passage: ~256 word pieces of English prose, less room for title and heading.
    static let wordsPerChunk = 160
    /// Words repeated at the start of the next passage, so no sentence is only ever cut.
    static let overlap = 32
    /// Passages kept per section: a long chapter is embedded by its first ones (the rest is
    /// still found by its words).
    static let maxChunksPerSection = 8
    /// Characters counted as one word in text without spaces (CJK), where a "word" can be a
    /// whole sentence.
    static let charactersPerWord = 2

    /// What the passages of a section are; stored vectors of another layout are made again
    /// (``NoteIndex/embedPending(with:progress:shouldStop:)``).
    /// 2: a file's first section also has its title alone as a passage.
    /// 3: the title passage of the workspace's `context.md` says what the file is for.
    static let layout = "3"

    /// What a file of `kind` is for, when the product defines it and its title cannot say
    /// it: `context.md` is where the agent keeps what it learns about the person (its
    /// title, "Context", is near nothing a person asks: "what does the agent know about me").
    static func role(of kind: DocumentKind) -> String? {
        kind == .context ? "what the agent has learned about me" : nil
    }

    /// - Parameters:
    ///   - titlePassage: the section is its file's first: the title alone is a passage
    ///     too. A title says what a note is about in a few words ("Reading list"), which the
    ///     passages, mostly its text, say only diluted: a question about what a note is
    ///     finds it by that vector.
    ///   - role: what the file is for (``role(of:)``), said after the title in that passage.
    static func chunks(
        title: String, heading: String, body: String, titlePassage: Bool = false,
        role: String? = nil
    ) -> [Chunk] {
        // Words with the line each starts on.
        var words: [(text: Substring, line: Int)] = []
        var line = 0
        for (n, text) in body.split(
            omittingEmptySubsequences: false,
            whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        ).enumerated() {
            line = n
            for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                if word.count > 2 * wordsPerChunk {
                    // Unspaced text: cut into pieces that count as words of their own.
                    var rest = word[...]
                    while !rest.isEmpty {
                        let piece = rest.prefix(charactersPerWord * 8)
                        words.append((piece, line))
                        rest = rest.dropFirst(piece.count)
                    }
                } else {
                    words.append((word, line))
                }
            }
        }
        let prefix = [title, heading == title ? "" : heading].filter { !$0.isEmpty }.joined(
            separator: " — ")
        var result: [Chunk] = []
        let named = [title, role ?? ""].filter { !$0.isEmpty }.joined(separator: ": ")
        guard !words.isEmpty else {
            // A heading alone (a note that opens with its subsections): the prefix is its
            // one passage, and the title passage only when it says more (the role).
            if !prefix.isEmpty { result.append(Chunk(text: prefix, line: 0)) }
            if titlePassage && role != nil && named != prefix {
                result.append(Chunk(text: named, line: 0))
            }
            return result
        }
        var start = 0
        while start < words.count && result.count < maxChunksPerSection {
            let end = min(words.count, start + wordsPerChunk)
            let passage = words[start..<end].map(\.text).joined(separator: " ")
            result.append(
                Chunk(
                    text: prefix.isEmpty ? passage : prefix + "\n" + passage,
                    line: words[start].line))
            if end == words.count { break }
            start = end - overlap
        }
        if titlePassage && !named.isEmpty { result.append(Chunk(text: named, line: 0)) }
        return result
    }
}
