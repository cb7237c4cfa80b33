/// Line-based three-way merge (docs/spec.md §6.2): each side's changes against the base are hunks
/// (base lines replaced, or a point where lines are inserted); hunks of one side are taken
/// as they are, identical hunks of both sides are taken once, different insertions at one
/// point are both taken (the file's, `theirs`, first: it was there first), and hunks that
/// overlap — change a base line in common, or insert strictly inside the other's changed
/// lines — are conflicts, as is a change that grows its lines right where the other side
/// inserts (the new lines could go above or below the insertion). Changes on different lines merge even when
/// adjacent (a paragraph inserted right below a reworded line touches no line the rewording
/// changed). Works on bytes, so line endings and encodings pass through untouched.
public enum ThreeWayMerge {
    /// The outcome of a merge.
    public enum Outcome: Equatable, Sendable {
        case merged([UInt8])
        case conflicts([MergeConflict])
    }

    /// One side's change against the base: base lines `base` replaced by that side's lines
    /// `lines` (an empty `base` is an insertion before base line `base.lowerBound`).
    struct Hunk {
        var base: Range<Int>
        var lines: Range<Int>
        var ours: Bool
    }

    /// Merges `ours` and `theirs`, both derived from `base`.
    public static func merge(base: [UInt8], ours: [UInt8], theirs: [UInt8]) -> Outcome {
        let (output, conflicts) = combine(base: base, ours: ours, theirs: theirs, markers: nil)
        return conflicts.isEmpty ? .merged(output) : .conflicts(conflicts)
    }

    /// The labels of the marker lines around a conflict in ``marked(base:ours:theirs:markers:)``.
    public struct Markers: Sendable {
        public var theirs: String
        public var ours: String

        public init(theirs: String, ours: String) {
            self.theirs = theirs
            self.ours = ours
        }
    }

    /// The merge of `ours` and `theirs` for a person to finish in an editor: each conflict
    /// written out as `<<<<<<< theirs`, their text, `=======`, ours, `>>>>>>> ours`; and the
    /// conflicts (none: the text is the clean merge).
    public static func marked(base: [UInt8], ours: [UInt8], theirs: [UInt8], markers: Markers)
        -> (text: [UInt8], conflicts: [MergeConflict])
    {
        combine(base: base, ours: ours, theirs: theirs, markers: markers)
    }

    /// The 1-based number of the first line of `text` that is a conflict marker a marked
    /// merge writes (`<<<<<<< ` or `>>>>>>> `; `=======` alone is also a Markdown heading's
    /// underline), or nil.
    public static func firstMarkerLine(_ text: [UInt8]) -> Int? {
        let lines = ByteLines(text)
        return (0..<lines.count).first {
            let line = lines.text($0)
            return line.hasPrefix("<<<<<<< ") || line.hasPrefix(">>>>>>> ")
        }.map { $0 + 1 }
    }

    /// The merge's text and conflicts; a conflict's place holds the file's text (`theirs`),
    /// or both sides between marker lines when `markers` are given.
    static func combine(base: [UInt8], ours: [UInt8], theirs: [UInt8], markers: Markers?)
        -> ([UInt8], [MergeConflict])
    {
        if ours == theirs { return (ours, []) }
        if ours == base { return (theirs, []) }
        if theirs == base { return (ours, []) }
        let o = ByteLines(base)
        let a = ByteLines(ours)
        let b = ByteLines(theirs)
        // Insertions sort before a change starting at the same base line, so text inserted
        // above a changed line stays above it.
        let hunks = (hunks(o, a, ours: true) + hunks(o, b, ours: false)).sorted {
            ($0.base.lowerBound, $0.base.upperBound) < ($1.base.lowerBound, $1.base.upperBound)
        }
        var output: [UInt8] = []
        var conflicts: [MergeConflict] = []
        var cursor = 0
        var index = 0
        while index < hunks.count {
            // A group: hunks that overlap or touch one another (through a chain), from
            // either side; hunks of one side never touch each other.
            var group = [hunks[index]]
            var extent = hunks[index].base
            index += 1
            while index < hunks.count, hunks[index].base.lowerBound <= extent.upperBound {
                extent = extent.lowerBound..<max(extent.upperBound, hunks[index].base.upperBound)
                group.append(hunks[index])
                index += 1
            }
            output += o.lines[cursor..<extent.lowerBound].joined()
            cursor = extent.upperBound
            if group.count == 1 {
                output += (group[0].ours ? a : b).lines[group[0].lines].joined()
                continue
            }
            let oursText = text(of: group.filter(\.ours), over: extent, base: o, side: a)
            let theirsText = text(of: group.filter { !$0.ours }, over: extent, base: o, side: b)
            let overlapping = group.contains { x in
                group.contains { y in x.ours && !y.ours && overlap(x.base, y.base) }
            }
            if oursText == theirsText {
                output += oursText.joined()
            } else if !overlapping && !growsIntoInsertion(group, ours: a, theirs: b) {
                output += adjacent(group, over: extent, base: o, ours: a, theirs: b).joined()
            } else if overlapping, extent.isEmpty, let longer = containing(oursText, theirsText) {
                // Both inserted at one point and one insertion holds the other at its start
                // or end: the same lines, taken once, and the rest.
                output += longer.joined()
            } else if overlapping, extent.isEmpty {
                // Both inserted different text at one point: the file's text first (it was
                // there first), then the incoming change's.
                output += (theirsText + oursText).joined()
            } else {
                conflicts.append(
                    MergeConflict(
                        line: extent.lowerBound + 1, base: string(o.lines[extent]),
                        ours: string(oursText[...]), theirs: string(theirsText[...])))
                if let markers {
                    output += marker("<<<<<<< " + markers.theirs, after: output)
                    output += theirsText.joined()
                    output += marker("=======", after: output)
                    output += oursText.joined()
                    output += marker(">>>>>>> " + markers.ours, after: output)
                } else {
                    output += theirsText.joined()
                }
            }
        }
        output += o.lines[cursor...].joined()
        return (output, conflicts)
    }

    /// A marker line, on a line of its own after `text`.
    static func marker(_ line: String, after text: [UInt8]) -> [UInt8] {
        (text.isEmpty || text.last == 0x0A ? [] : [0x0A]) + Array((line + "\n").utf8)
    }

    /// Whether a change of one side that replaces lines with more lines ends right where
    /// the other side inserts text (other than the lines it already ends with): the added
    /// lines may belong above or below the insertion (a reworded last line plus a new
    /// section, next to the other side's new paragraph), so the group is a conflict rather
    /// than one side's text pushed under the other's heading.
    static func growsIntoInsertion(_ group: [Hunk], ours: ByteLines, theirs: ByteLines) -> Bool {
        group.contains { grown in
            !grown.base.isEmpty && grown.lines.count > grown.base.count
                && group.contains { insertion in
                    insertion.ours != grown.ours && insertion.base.isEmpty
                        && insertion.base.lowerBound == grown.base.upperBound
                        && !(grown.ours ? ours : theirs).lines[grown.lines].reversed().starts(
                            with: (insertion.ours ? ours : theirs).lines[insertion.lines].reversed()
                        )
                }
        }
    }

    /// Base lines `extent` with every hunk of `group` applied in order, the hunks touching
    /// but not overlapping. An insertion that the other side's touching hunk already ends
    /// with (inserted below) or starts with (inserted above) is the same lines, taken once.
    static func adjacent(
        _ group: [Hunk], over extent: Range<Int>, base: ByteLines, ours: ByteLines,
        theirs: ByteLines
    ) -> [ArraySlice<UInt8>] {
        func lines(_ hunk: Hunk) -> ArraySlice<ArraySlice<UInt8>> {
            (hunk.ours ? ours : theirs).lines[hunk.lines]
        }
        func repeated(_ insertion: Hunk) -> Bool {
            let inserted = lines(insertion)
            return group.contains { other in
                guard other.ours != insertion.ours, !other.base.isEmpty else { return false }
                if other.base.upperBound == insertion.base.lowerBound {
                    return lines(other).reversed().starts(with: inserted.reversed())
                }
                if other.base.lowerBound == insertion.base.lowerBound {
                    return lines(other).starts(with: inserted)
                }
                return false
            }
        }
        var result: [ArraySlice<UInt8>] = []
        var position = extent.lowerBound
        for hunk in group where !(hunk.base.isEmpty && repeated(hunk)) {
            result += base.lines[position..<hunk.base.lowerBound]
            result += lines(hunk)
            position = hunk.base.upperBound
        }
        result += base.lines[position..<extent.upperBound]
        return result
    }

    /// The hunks turning `base` into `side`, in base order.
    static func hunks(_ base: ByteLines, _ side: ByteLines, ours: Bool) -> [Hunk] {
        var result: [Hunk] = []
        var i = 0
        var j = 0
        for (mi, mj) in LineDiff.matches(base, side) + [(base.count, side.count)] {
            if mi > i || mj > j { result.append(Hunk(base: i..<mi, lines: j..<mj, ours: ours)) }
            i = mi + 1
            j = mj + 1
        }
        return result
    }

    /// Whether a change of base lines `a` and one of `b` touch a line in common: both
    /// replace a common line, both insert at one point, or one inserts strictly inside the
    /// other's replaced lines. Adjacent changes do not overlap.
    static func overlap(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        switch (a.isEmpty, b.isEmpty) {
        case (true, true): return a.lowerBound == b.lowerBound
        case (true, false): return b.lowerBound < a.lowerBound && a.lowerBound < b.upperBound
        case (false, true): return a.lowerBound < b.lowerBound && b.lowerBound < a.upperBound
        case (false, false):
            return max(a.lowerBound, b.lowerBound) < min(a.upperBound, b.upperBound)
        }
    }

    /// Base lines `extent` with one side's `hunks` (inside it) applied.
    static func text(of hunks: [Hunk], over extent: Range<Int>, base: ByteLines, side: ByteLines)
        -> [ArraySlice<UInt8>]
    {
        var result: [ArraySlice<UInt8>] = []
        var position = extent.lowerBound
        for hunk in hunks {
            result += base.lines[position..<hunk.base.lowerBound]
            result += side.lines[hunk.lines]
            position = hunk.base.upperBound
        }
        result += base.lines[position..<extent.upperBound]
        return result
    }

    /// The longer of two insertions when it starts or ends with the shorter one.
    static func containing(_ a: [ArraySlice<UInt8>], _ b: [ArraySlice<UInt8>]) -> [ArraySlice<
        UInt8
    >]? {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        if long.starts(with: short) || long.reversed().starts(with: short.reversed()) {
            return long
        }
        return nil
    }

    static func string(_ lines: ArraySlice<ArraySlice<UInt8>>) -> String {
        String(decoding: lines.joined(), as: UTF8.self)
    }
}
