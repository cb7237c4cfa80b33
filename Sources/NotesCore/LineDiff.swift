/// Line-based differences between two texts (Myers' O(ND) algorithm after trimming the
/// common head and tail). Used for the diffs shown to people and agents, for the guard's
/// "which lines did the person change" and for three-way merges.
public enum LineDiff {
    /// Beyond this many differing lines the middle is treated as replaced wholesale: a valid
    /// diff that is not minimal, computed in bounded time and memory.
    public static let maxEditDistance = 2000

    /// Pairs `(i, j)` of equal lines `a[i] == b[j]`, strictly increasing in both: a longest
    /// common subsequence (or close to one past ``maxEditDistance``).
    public static func matches(_ a: ByteLines, _ b: ByteLines) -> [(Int, Int)] {
        var ids: [ArraySlice<UInt8>: Int] = [:]
        func id(_ line: ArraySlice<UInt8>) -> Int {
            if let known = ids[line] { return known }
            ids[line] = ids.count
            return ids.count - 1
        }
        let x = a.lines.map(id)
        let y = b.lines.map(id)
        var head = 0
        while head < x.count, head < y.count, x[head] == y[head] { head += 1 }
        var tail = 0
        while tail < x.count - head, tail < y.count - head,
            x[x.count - 1 - tail] == y[y.count - 1 - tail]
        { tail += 1 }
        var result: [(Int, Int)] = (0..<head).map { ($0, $0) }
        let middle = myers(Array(x[head..<(x.count - tail)]), Array(y[head..<(y.count - tail)]))
        result += middle.map { ($0.0 + head, $0.1 + head) }
        result += (0..<tail).map { (x.count - tail + $0, y.count - tail + $0) }
        return result
    }

    /// Myers' greedy algorithm with a trace of the furthest-reaching paths for backtracking.
    static func myers(_ a: [Int], _ b: [Int]) -> [(Int, Int)] {
        let n = a.count
        let m = b.count
        if n == 0 || m == 0 { return [] }
        let limit = min(n + m, maxEditDistance)
        let offset = limit + 1
        var v = [Int](repeating: 0, count: 2 * limit + 3)
        var trace: [[Int]] = []
        for d in 0...limit {
            trace.append(Array(v[(offset - d)...(offset + d)]))
            for k in stride(from: -d, through: d, by: 2) {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = v[offset + k + 1]
                } else {
                    x = v[offset + k - 1] + 1
                }
                var y = x - k
                while x < n, y < m, a[x] == b[y] {
                    x += 1
                    y += 1
                }
                v[offset + k] = x
                if x >= n, y >= m { return backtrack(trace, n: n, m: m, d: d) }
            }
        }
        return []  // too different: no line is considered kept
    }

    private static func backtrack(_ trace: [[Int]], n: Int, m: Int, d final: Int) -> [(Int, Int)] {
        var result: [(Int, Int)] = []
        var x = n
        var y = m
        for d in stride(from: final, through: 0, by: -1) {
            let k = x - y
            if d == 0 {
                while x > 0, y > 0 {
                    result.append((x - 1, y - 1))
                    x -= 1
                    y -= 1
                }
                break
            }
            let previous = trace[d]  // v before step d, indices -d...d stored at 0...2d
            func at(_ k: Int) -> Int { previous[k + d] }
            let previousK = (k == -d || (k != d && at(k - 1) < at(k + 1))) ? k + 1 : k - 1
            let previousX = at(previousK)
            let previousY = previousX - previousK
            while x > previousX, y > previousY, x > 0, y > 0 {
                result.append((x - 1, y - 1))
                x -= 1
                y -= 1
            }
            x = previousX
            y = previousY
        }
        return result.reversed()
    }

    /// Indices of lines of `a` that are not kept in `b` (deleted or replaced).
    public static func removedLines(_ a: ByteLines, _ b: ByteLines) -> Set<Int> {
        var kept = Set<Int>()
        for (i, _) in matches(a, b) { kept.insert(i) }
        return Set(0..<a.count).subtracting(kept)
    }

    /// Indices of lines of `b` that are not in `a` (inserted or replaced).
    public static func addedLines(_ a: ByteLines, _ b: ByteLines) -> Set<Int> {
        var kept = Set<Int>()
        for (_, j) in matches(a, b) { kept.insert(j) }
        return Set(0..<b.count).subtracting(kept)
    }

    /// A unified diff (`---`/`+++` headers, `@@` hunks, `context` lines around changes);
    /// empty when the texts are equal.
    public static func unified(
        _ old: [UInt8], _ new: [UInt8], oldLabel: String = "a", newLabel: String = "b",
        context: Int = 3
    ) -> String {
        let a = ByteLines(old)
        let b = ByteLines(new)
        if old == new { return "" }
        // Walk the matches into a script of kept / removed / added lines.
        var script: [DiffStep] = []
        var i = 0
        var j = 0
        for (mi, mj) in matches(a, b) + [(a.count, b.count)] {
            while i < mi {
                script.append(.remove(i))
                i += 1
            }
            while j < mj {
                script.append(.add(j))
                j += 1
            }
            if mi < a.count { script.append(.keep(mi, mj)) }
            i = mi + 1
            j = mj + 1
        }
        var out = "--- \(oldLabel)\n+++ \(newLabel)\n"
        let changed = script.indices.filter {
            if case .keep = script[$0] { return false } else { return true }
        }
        var index = 0
        while index < changed.count {
            var start = max(0, changed[index] - context)
            var end = min(script.count, changed[index] + context + 1)
            while index + 1 < changed.count, changed[index + 1] - context <= end {
                index += 1
                end = min(script.count, changed[index] + context + 1)
            }
            index += 1
            if start < 0 { start = 0 }
            var oldStart = -1
            var newStart = -1
            var oldCount = 0
            var newCount = 0
            var body = ""
            func noNewline(_ lines: ByteLines, _ k: Int) -> Bool {
                k == lines.count - 1 && lines.lines[k].last != 0x0A
            }
            for step in script[start..<end] {
                switch step {
                case .keep(let x, let y):
                    if oldStart < 0 { oldStart = x }
                    if newStart < 0 { newStart = y }
                    oldCount += 1
                    newCount += 1
                    body += " " + a.text(x) + "\n"
                    if noNewline(a, x) { body += "\\ No newline at end of file\n" }
                case .remove(let x):
                    if oldStart < 0 { oldStart = x }
                    oldCount += 1
                    body += "-" + a.text(x) + "\n"
                    if noNewline(a, x) { body += "\\ No newline at end of file\n" }
                case .add(let y):
                    if newStart < 0 { newStart = y }
                    newCount += 1
                    body += "+" + b.text(y) + "\n"
                    if noNewline(b, y) { body += "\\ No newline at end of file\n" }
                }
            }
            // Position of an empty side: the line before which nothing exists (unified diff style).
            if oldStart < 0 { oldStart = positionBefore(script, start, old: true) }
            if newStart < 0 { newStart = positionBefore(script, start, old: false) }
            let oldHeader =
                oldCount == 0
                ? "\(oldStart),0"
                : oldCount == 1 ? "\(oldStart + 1)" : "\(oldStart + 1),\(oldCount)"
            let newHeader =
                newCount == 0
                ? "\(newStart),0"
                : newCount == 1 ? "\(newStart + 1)" : "\(newStart + 1),\(newCount)"
            out += "@@ -\(oldHeader) +\(newHeader) @@\n" + body
        }
        return out
    }

    /// The number of old (or new) lines before script position `index`.
    private static func positionBefore(_ script: [DiffStep], _ index: Int, old: Bool) -> Int {
        var count = 0
        for step in script[..<index] {
            switch step {
            case .keep: count += 1
            case .remove: if old { count += 1 }
            case .add: if !old { count += 1 }
            }
        }
        return count
    }
}
