import NotesCore
import NotesDocuments

/// A document's text as it goes into the FTS table (``FTSText/prepare(_:)``), prepared on
/// the parsing threads so that the single writer only inserts: the column texts, and their
/// FTS5 tokens recorded ahead of time (``RecordedTokens``), which the writer's INSERT
/// replays instead of tokenizing again.
struct SearchableText: Sendable {
    var title: String
    var tags: String
    /// Per section: its heading ("" for a continuation) and body.
    var sections: [(heading: String, body: String)]
    /// The tokens of title, tags, then each section's heading and body; nil when recording
    /// failed (the INSERT then tokenizes as usual).
    var tokens: RecordedTokens?
    /// Per section: a hash of its FTS row's four texts (the first 8 bytes of a SHA-256 over
    /// them, each preceded by its length). Equal digests mean the row need not be rewritten.
    var digests: [Int64]

    init(_ document: ParsedDocument) {
        title = FTSText.prepare(([document.title] + document.aliases).joined(separator: " "))
        tags = FTSText.prepare(document.tags.joined(separator: " "))
        sections = document.sections.map {
            ($0.isContinuation ? "" : FTSText.prepare($0.heading), FTSText.prepare($0.text))
        }
        var texts = [title, tags]
        texts.reserveCapacity(2 + 2 * sections.count)
        for section in sections {
            texts.append(section.heading)
            texts.append(section.body)
        }
        tokens = RecordedTokens(texts)
        digests = sections.map { [title, tags] in Self.digest(title, $0.heading, tags, $0.body) }
    }

    /// The hash of one FTS row's texts (``digests``).
    static func digest(_ title: String, _ heading: String, _ tags: String, _ body: String) -> Int64
    {
        withUTF8(title, heading, tags, body) { t, h, g, b in SHA256.prefix64(of: [t, h, g, b]) }
    }

    /// Calls `body` with the UTF-8 of one FTS row's four texts (title, heading, tags, body).
    static func withUTF8<T>(
        _ title: String, _ heading: String, _ tags: String, _ body: String,
        _ use: (
            UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>,
            UnsafeBufferPointer<UInt8>
        ) throws -> T
    ) rethrows -> T {
        var title = title
        var heading = heading
        var tags = tags
        var body = body
        return try title.withUTF8 { t in
            try heading.withUTF8 { h in
                try tags.withUTF8 { g in try body.withUTF8 { b in try use(t, h, g, b) } }
            }
        }
    }

    /// Runs `insert` (the INSERT of section `ordinal`'s FTS row) with the UTF-8 of its four
    /// texts (title, heading, tags, body), valid while `insert` runs, and the recorded tokens
    /// of the four armed for replay.
    func replaying<T>(
        section ordinal: Int,
        _ insert: (
            _ title: UnsafeBufferPointer<UInt8>, _ heading: UnsafeBufferPointer<UInt8>,
            _ tags: UnsafeBufferPointer<UInt8>, _ body: UnsafeBufferPointer<UInt8>
        ) throws -> T
    ) rethrows -> T {
        try Self.withUTF8(title, sections[ordinal].heading, tags, sections[ordinal].body) {
            t, h, g, b in
            guard let tokens else { return try insert(t, h, g, b) }
            return try TokenReplay.replaying([
                tokens.column(0, text: t), tokens.column(1, text: g),
                tokens.column(2 + 2 * ordinal, text: h), tokens.column(3 + 2 * ordinal, text: b),
            ]) {
                try insert(t, h, g, b)
            }
        }
    }
}
