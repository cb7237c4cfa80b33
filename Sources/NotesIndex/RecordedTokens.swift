import CSQLiteExtensions
import GRDB
import GRDBSQLite

/// The FTS5 tokens of a list of texts, recorded in one buffer on the thread that creates it
/// and only read afterwards.
final class RecordedTokens: @unchecked Sendable {
    // Written only in `init`; read-only once shared (hence @unchecked Sendable).
    private var buffer: notes_token_buffer
    private let ranges: [Range<Int>]

    /// Records each text's tokens; nil when the tokenizer fails.
    init?(_ texts: [String]) {
        var buffer = notes_token_buffer()
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(texts.count)
        // A recording takes 3 bytes per token plus the token: about 1.3 times its text
        // (up to 2 for one-letter words); growing the buffer copied it.
        let textBytes = texts.reduce(0) { $0 + $1.utf8.count }
        guard notes_tokens_reserve(&buffer, textBytes + textBytes / 2 + 64) == SQLITE_OK else {
            return nil
        }
        for text in texts {
            var text = text
            let start = buffer.count
            let code = text.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) {
                    notes_tokens_record($0.baseAddress, Int32(bytes.count), &buffer)
                }
            }
            guard code == SQLITE_OK else {
                notes_tokens_free(&buffer)
                return nil
            }
            ranges.append(start..<buffer.count)
        }
        self.buffer = buffer
        self.ranges = ranges
    }

    deinit { notes_tokens_free(&buffer) }

    /// The replay entry for text `index`, which is `text` as bound to the INSERT.
    func column(_ index: Int, text: UnsafeBufferPointer<UInt8>) -> notes_token_column {
        let range = ranges[index]
        return notes_token_column(
            text: UnsafeRawPointer(text.baseAddress)?.assumingMemoryBound(to: CChar.self),
            length: Int32(text.count),
            tokens: buffer.bytes.map { UnsafePointer($0 + range.lowerBound) },
            tokens_length: range.count)
    }
}
