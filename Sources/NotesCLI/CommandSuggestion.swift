/// The command a mistyped one most likely meant (`serch` → `search`), as git suggests.
enum CommandSuggestion {
    /// The name nearest `typed`: a name it begins (`hist` → `history`, when only one does),
    /// else the fewest single-letter edits (an insertion, a deletion, a change, two letters
    /// swapped), at most two and fewer than half the word; nil when none is that near.
    static func nearest(to typed: String, among names: [String]) -> String? {
        let word = typed.lowercased()
        let starting = names.filter { word.count >= 2 && $0.hasPrefix(word) }
        if starting.count == 1 { return starting[0] }
        let scored = names.map { (name: $0, distance: distance(word, $0)) }
        guard let best = scored.min(by: { ($0.distance, $0.name) < ($1.distance, $1.name) }),
            best.distance <= 2, best.distance * 2 < max(word.count, 2)
        else { return nil }
        return best.name
    }

    /// The optimal string alignment distance: insertions, deletions, substitutions and
    /// transpositions of neighbours each count one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
