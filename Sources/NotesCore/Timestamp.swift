#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ISO 8601 timestamps as the provenance keys use them (docs/spec.md §3.1): written as UTC
/// `2026-11-21T09:30:00Z`; read leniently (plain dates, fractions, offsets, a space
/// instead of `T`).
public enum Timestamp {
    /// Seconds since the epoch for `text`, or nil when it is not a date or date-time.
    public static func parse(_ text: String) -> Double? {
        // Blanks and quotes around the value are dropped (ASCII: bytes are characters here).
        var s = Array(text.utf8)
        let trimmed: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x22 || $0 == 0x27 }
        if let first = s.first, let last = s.last, trimmed(first) || trimmed(last) {
            let start = s.firstIndex { !trimmed($0) } ?? s.count
            let end = (s.lastIndex { !trimmed($0) } ?? -1) + 1
            s = start < end ? Array(s[start..<end]) : []
        }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= s.count else { return nil }
            var value = 0
            for i in start..<(start + count) {
                let d = Int(s[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                value = value * 10 + d
            }
            return value
        }
        guard s.count >= 10, let year = number(0, 4), s[4] == UInt8(ascii: "-"),
            let month = number(5, 2),
            s[7] == UInt8(ascii: "-"), let day = number(8, 2), (1...12).contains(month),
            (1...31).contains(day)
        else { return nil }
        var seconds = Double(daysFromCivil(year, month, day)) * 86_400
        if s.count == 10 { return seconds }
        guard
            s[10] == UInt8(ascii: "T") || s[10] == UInt8(ascii: "t") || s[10] == UInt8(ascii: " "),
            let hour = number(11, 2), s.count > 13, s[13] == UInt8(ascii: ":"),
            let minute = number(14, 2),
            hour < 25, minute < 60
        else { return nil }
        seconds += Double(hour * 3600 + minute * 60)
        var i = 16
        if i < s.count, s[i] == UInt8(ascii: ":") {
            guard let second = number(17, 2), second <= 60 else { return nil }
            seconds += Double(second)
            i = 19
            if i < s.count, s[i] == UInt8(ascii: ".") || s[i] == UInt8(ascii: ",") {
                i += 1
                var scale = 0.1
                while i < s.count, s[i] >= 48, s[i] <= 57 {
                    seconds += Double(s[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
            }
        }
        if i == s.count { return seconds }  // no zone: taken as UTC
        if s[i] == UInt8(ascii: "Z") || s[i] == UInt8(ascii: "z") {
            return i + 1 == s.count ? seconds : nil
        }
        if s[i] == UInt8(ascii: "+") || s[i] == UInt8(ascii: "-") {
            let sign: Double = s[i] == UInt8(ascii: "+") ? 1 : -1
            guard let oh = number(i + 1, 2) else { return nil }
            var om = 0
            if let m = number(i + 4, 2), s[i + 3] == UInt8(ascii: ":") {
                om = m
            } else if let m = number(i + 3, 2) {
                om = m
            }
            return seconds - sign * Double(oh * 3600 + om * 60)
        }
        return nil
    }

    /// `2026-11-21T09:30:00Z` for `seconds` since the epoch.
    public static func format(_ seconds: Double) -> String {
        let whole = Int64(seconds.rounded(.down))
        var days = whole / 86_400
        var rest = whole % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let (y, m, d) = civilFromDays(Int(days))
        if (0...9999).contains(y) {
            // Written byte by byte: the index writes one per file, and string
            // interpolation showed in its profile.
            return String(unsafeUninitializedCapacity: 20) { out in
                func put(_ value: Int, digits: Int, at start: Int) {
                    var v = value
                    for k in stride(from: start + digits - 1, through: start, by: -1) {
                        out[k] = UInt8(48 + v % 10)
                        v /= 10
                    }
                }
                put(y, digits: 4, at: 0)
                put(m, digits: 2, at: 5)
                put(d, digits: 2, at: 8)
                put(Int(rest / 3600), digits: 2, at: 11)
                put(Int(rest % 3600 / 60), digits: 2, at: 14)
                put(Int(rest % 60), digits: 2, at: 17)
                out[4] = UInt8(ascii: "-")
                out[7] = UInt8(ascii: "-")
                out[10] = UInt8(ascii: "T")
                out[13] = UInt8(ascii: ":")
                out[16] = UInt8(ascii: ":")
                out[19] = UInt8(ascii: "Z")
                return 20
            }
        }
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = String(repeating: "0", count: max(0, 4 - String(y).count)) + String(y)
        return
            "\(year)-\(two(m))-\(two(d))T\(two(Int(rest / 3600))):\(two(Int(rest % 3600 / 60))):\(two(Int(rest % 60)))Z"
    }

    /// The local calendar date (`2026-11-21`) and time (`14:05`) of `seconds`, in the
    /// process's time zone (`TZ`): what a person calls "today" names the journal page.
    public static func localDateTime(_ seconds: Double) -> (date: String, time: String) {
        var t = time_t(seconds.rounded(.down))
        var parts = tm()
        localtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return (
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))",
            "\(two(parts.tm_hour)):\(two(parts.tm_min))"
        )
    }

    /// The local date of `seconds` (see ``localDateTime(_:)``).
    public static func localDate(_ seconds: Double) -> String { localDateTime(seconds).date }

    /// The current time in seconds since the epoch.
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    // Howard Hinnant's civil-date algorithms.
    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension String {
    /// The string without leading and trailing characters from `set` (ASCII only).
    func trimmingCharacters(in set: String) -> String {
        let chars = Set(set.utf8)
        var bytes = Substring(self).utf8[...]
        while let f = bytes.first, chars.contains(f) { bytes = bytes.dropFirst() }
        while let l = bytes.last, chars.contains(l) { bytes = bytes.dropLast() }
        return String(Substring(bytes))
    }
}
