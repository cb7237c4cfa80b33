/// A region where both sides of a three-way merge changed the same lines differently.
public struct MergeConflict: Equatable, Sendable, Codable {
    /// First line of the region in the base (1-based; the line before which text was
    /// inserted when the base side is empty).
    public var line: Int
    /// The region's text in the common ancestor.
    public var base: String
    /// The region as the incoming change (the agent's text) has it.
    public var ours: String
    /// The region as the file on disk (the person's text) has it.
    public var theirs: String

    public init(line: Int, base: String, ours: String, theirs: String) {
        self.line = line
        self.base = base
        self.ours = ours
        self.theirs = theirs
    }
}

/// Line-based three-way merge (diff3): changes made on one side only are taken, identical
/// changes on both sides are taken once, and different changes to the same region are
/// conflicts. Works on bytes, so line endings and encodings pass through untouched.
public enum ThreeWayMerge {
    /// The outcome of a merge.
    public enum Outcome: Equatable, Sendable {
        case merged([UInt8])
        case conflicts([MergeConflict])
    }

    /// Merges `ours` and `theirs`, both derived from `base`.
    public static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8]) -> Outcome {
        if ours == theirs { return .merged(ours) }
        if ours == base { return .merged(theirs) }
        if theirs == base { return .merged(ours) }
        let o = ByteLines(base), a = ByteLines(ours), b = ByteLines(theirs)
        var toA = [Int](repeating: -1, count: o.count), toB = [Int](repeating: -1, count: o.count)
        for (i, j) in LineDiff.matches(o, a) { toA[i] = j }
        for (i, j) in LineDiff.matches(o, b) { toB[i] = j }

        var output: [UInt8] = []
        var conflicts: [MergeConflict] = []
        var io = 0, ia = 0, ib = 0
        func text(_ lines: ByteLines, _ range: Range<Int>) -> [UInt8] { range.flatMap { lines.lines[$0] } }
        while io < o.count || ia < a.count || ib < b.count {
            // A stable line: the same base line kept by both sides at their current position.
            if io < o.count, toA[io] == ia, toB[io] == ib {
                output += o.lines[io]
                io += 1; ia += 1; ib += 1
                continue
            }
            // The next base line both sides kept ends this unstable region.
            var j = io
            while j < o.count, !(toA[j] >= ia && toB[j] >= ib) { j += 1 }
            let ja = j < o.count ? toA[j] : a.count
            let jb = j < o.count ? toB[j] : b.count
            let baseChunk = text(o, io..<j), oursChunk = text(a, ia..<ja), theirsChunk = text(b, ib..<jb)
            if oursChunk == baseChunk {
                output += theirsChunk
            } else if theirsChunk == baseChunk || oursChunk == theirsChunk {
                output += oursChunk
            } else {
                conflicts.append(MergeConflict(
                    line: io + 1, base: String(decoding: baseChunk, as: UTF8.self),
                    ours: String(decoding: oursChunk, as: UTF8.self), theirs: String(decoding: theirsChunk, as: UTF8.self)))
                output += theirsChunk
            }
            io = j; ia = ja; ib = jb
        }
        return conflicts.isEmpty ? .merged(output) : .conflicts(conflicts)
    }
}
