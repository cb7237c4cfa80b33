/// WordPiece's vocabulary as one open-addressing hash table over the pieces' UTF-8 bytes:
/// word-initial pieces and `##` pieces (kept without their `##`) in two key spaces.
///
/// Built straight from vocab.txt's bytes, with no String per piece, because a search loads
/// the model in every `notes search` process and the vocabulary has 30,000 pieces.
struct PieceTable: Sendable {
    /// Every piece's bytes, one after another.
    private let bytes: [UInt8]
    /// Per entry: where its bytes start, how many, whether it is a `##` piece, and its id.
    private let starts: [Int32]
    private let lengths: [Int32]
    private let continuing: [Bool]
    private let ids: [Int32]
    /// Entry index + 1 per slot (0 = empty); a power of two at least twice the entries.
    private let slots: [Int32]
    /// Distinct pieces (the first of two identical lines wins, as in the HF tokenizer).
    var count: Int { ids.count }
    /// The longest piece, in Unicode scalars.
    let longestPiece: Int

    /// `lines` are vocab.txt's lines as byte ranges of `text`; the id is the line number.
    init(text: UnsafeBufferPointer<UInt8>, lines: [Range<Int>]) {
        var capacity = 1
        while capacity < lines.count * 2 { capacity <<= 1 }
        var bytes: [UInt8] = []
        var starts: [Int32] = []
        var lengths: [Int32] = []
        var continuing: [Bool] = []
        var ids: [Int32] = []
        bytes.reserveCapacity(text.count)
        var slots = [Int32](repeating: 0, count: capacity)
        var longest = 1
        for (line, range) in lines.enumerated() {
            var lower = range.lowerBound
            var isContinuing = false
            if range.count > 2 && text[lower] == UInt8(ascii: "#")
                && text[lower + 1] == UInt8(ascii: "#")
            {
                isContinuing = true
                lower += 2
            }
            let piece = UnsafeBufferPointer(rebasing: text[lower..<range.upperBound])
            var slot = Self.hash(piece, continuing: isContinuing) & (capacity - 1)
            var duplicate = false
            while slots[slot] != 0 {
                let entry = Int(slots[slot] - 1)
                if continuing[entry] == isContinuing && lengths[entry] == piece.count
                    && bytes[Int(starts[entry])..<(Int(starts[entry]) + piece.count)].elementsEqual(
                        piece)
                {
                    duplicate = true
                    break
                }
                slot = (slot + 1) & (capacity - 1)
            }
            if duplicate { continue }
            starts.append(Int32(bytes.count))
            lengths.append(Int32(piece.count))
            continuing.append(isContinuing)
            ids.append(Int32(line))
            bytes.append(contentsOf: piece)
            slots[slot] = Int32(ids.count)
            longest = max(longest, piece.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) })
        }
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
        self.continuing = continuing
        self.ids = ids
        self.slots = slots
        self.longestPiece = longest
    }

    /// The id of the piece spelled by `piece` (UTF-8), word-initial or `##`.
    func id(_ piece: UnsafeBufferPointer<UInt8>, continuing isContinuing: Bool) -> Int32? {
        let mask = slots.count - 1
        var slot = Self.hash(piece, continuing: isContinuing) & mask
        while slots[slot] != 0 {
            let entry = Int(slots[slot] - 1)
            if continuing[entry] == isContinuing && Int(lengths[entry]) == piece.count
                && bytes[Int(starts[entry])..<(Int(starts[entry]) + piece.count)].elementsEqual(
                    piece)
            {
                return ids[entry]
            }
            slot = (slot + 1) & mask
        }
        return nil
    }

    func id(_ piece: String, continuing: Bool = false) -> Int32? {
        var piece = piece
        return piece.withUTF8 { id($0, continuing: continuing) }
    }

    /// FNV-1a over the bytes, the key space mixed in first.
    private static func hash(_ piece: UnsafeBufferPointer<UInt8>, continuing: Bool) -> Int {
        var h: UInt64 = continuing ? 0x8422_2325_cbf2_9ce4 : 0xcbf2_9ce4_8422_2325
        for byte in piece {
            h ^= UInt64(byte)
            h &*= 0x100_0000_01b3
        }
        return Int(truncatingIfNeeded: h ^ (h >> 29))
    }
}
