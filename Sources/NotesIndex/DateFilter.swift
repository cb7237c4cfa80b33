import NotesCore

/// A comparison of a timestamp with an instant: `>=2026-01-01`, `<7d` (within 7 days).
public struct DateFilter: Sendable, Equatable {
    public enum Comparison: String, Sendable {
        case before = "<", atOrBefore = "<=", after = ">", atOrAfter = ">="
    }
    public var comparison: Comparison
    /// Seconds since the epoch.
    public var instant: Double

    public init(comparison: Comparison, instant: Double) {
        self.comparison = comparison
        self.instant = instant
    }

    /// Parses the value of `created:` / `modified:`. A relative age (`7d`, `2w`, `3m`, `1y`,
    /// `12h`) compares ages: `<7d` and `7d` mean less than 7 days old. A bare date means that
    /// day. A range of dates needs no shell quoting: `2026-11-01..` (that day or later),
    /// `..2026-11-30` (that day or earlier), `2026-11-01..2026-11-30` (both ends included).
    public static func parse(_ raw: String, now: Double) -> [DateFilter]? {
        let parts = raw.split(separator: "..", maxSplits: 1, omittingEmptySubsequences: false)
        if parts.count == 2, !raw.hasPrefix("<"), !raw.hasPrefix(">"), !raw.hasPrefix("=") {
            let lower = parts[0]
            let upper = parts[1]
            guard !(lower.isEmpty && upper.isEmpty),
                lower.isEmpty || Timestamp.parse(String(lower)) != nil,
                upper.isEmpty || Timestamp.parse(String(upper)) != nil
            else { return nil }
            var filters: [DateFilter] = []
            if !lower.isEmpty { filters += parse(">=" + lower, now: now) ?? [] }
            if !upper.isEmpty { filters += parse("<=" + upper, now: now) ?? [] }
            return filters
        }
        var text = Substring(raw)
        var op = ""
        while let c = text.first, c == "<" || c == ">" || c == "=" {
            op.append(c)
            text = text.dropFirst()
        }
        guard !text.isEmpty else { return nil }
        let units: [Character: Double] = [
            "h": 3600, "d": 86_400, "w": 7 * 86_400, "m": 30 * 86_400, "y": 365 * 86_400,
        ]
        if let unit = text.last, let seconds = units[unit], let amount = Double(text.dropLast()),
            amount >= 0
        {
            let instant = now - amount * seconds
            // Ages compare the other way round from instants.
            switch op {
            case "", "<": return [DateFilter(comparison: .after, instant: instant)]
            case "<=": return [DateFilter(comparison: .atOrAfter, instant: instant)]
            case ">": return [DateFilter(comparison: .before, instant: instant)]
            case ">=": return [DateFilter(comparison: .atOrBefore, instant: instant)]
            default: return nil
            }
        }
        guard let instant = Timestamp.parse(String(text)) else { return nil }
        let isDay = text.count == 10
        switch op {
        case "", "=":
            return isDay
                ? [
                    DateFilter(comparison: .atOrAfter, instant: instant),
                    DateFilter(comparison: .before, instant: instant + 86_400),
                ]
                : [
                    DateFilter(comparison: .atOrAfter, instant: instant),
                    DateFilter(comparison: .atOrBefore, instant: instant),
                ]
        case "<": return [DateFilter(comparison: .before, instant: instant)]
        case "<=":
            return [
                DateFilter(comparison: .before, instant: isDay ? instant + 86_400 : instant + 0.001)
            ]
        case ">":
            return [
                DateFilter(
                    comparison: .atOrAfter, instant: isDay ? instant + 86_400 : instant + 0.001)
            ]
        case ">=": return [DateFilter(comparison: .atOrAfter, instant: instant)]
        default: return nil
        }
    }
}
