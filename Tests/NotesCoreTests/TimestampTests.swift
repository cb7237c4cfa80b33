import Foundation
import NotesCore
import Testing

@Suite struct TimestampTests {
    @Test func parsesDatesAndDateTimes() {
        #expect(Timestamp.parse("1970-01-02") == 86_400)
        #expect(
            Timestamp.parse("2026-11-21T09:30:00Z") == Timestamp.parse("2026-11-21T10:30:00+01:00"))
        #expect(Timestamp.parse("2026-11-21 09:30") == Timestamp.parse("2026-11-21T09:30:00Z"))
        #expect(
            Timestamp.parse("2026-11-21T09:30:00.5Z") == Timestamp.parse("2026-11-21T09:30:00Z")!
                + 0.5)
        #expect(Timestamp.parse("yesterday") == nil)
        #expect(Timestamp.parse("2026-13-01") == nil)
    }

    @Test func formatsUTCRoundTrip() {
        #expect(Timestamp.format(0) == "1970-01-01T00:00:00Z")
        let t = Timestamp.parse("2026-11-21T09:30:00Z")!
        #expect(Timestamp.format(t) == "2026-11-21T09:30:00Z")
        #expect(
            Timestamp.format(Timestamp.parse("2000-02-29T23:59:59Z")!) == "2000-02-29T23:59:59Z")
    }

    /// Against the C library's own UTC formatting, over the years the fast path writes
    /// (0000–9999, before and after the epoch) and a few beyond it.
    @Test func formatAgreesWithTheCLibrary() {
        var generator = SystemRandomNumberGenerator()
        let year0: Int64 = -62_167_219_200  // 0000-01-01T00:00:00Z
        let year10000: Int64 = 253_402_300_800
        var samples: [Int64] = [
            0, -1, 59, 86_399, 86_400, year0, year10000 - 1, 951_868_799, 4_107_542_399,
        ]
        for _ in 0..<2000 { samples.append(Int64.random(in: year0..<year10000, using: &generator)) }
        for whole in samples {
            var t = time_t(whole)
            var parts = tm()
            gmtime_r(&t, &parts)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1,
                parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec)
            #expect(Timestamp.format(Double(whole)) == expected, "\(whole)")
            #expect(Timestamp.format(Double(whole) + 0.75) == expected, "\(whole).75")
            #expect(Timestamp.parse(expected) == Double(whole), "\(expected)")
        }
        #expect(Timestamp.format(Double(year10000)) == "10000-01-01T00:00:00Z")
    }

    /// Blanks and quotes around a value (YAML scalars as written) are ignored; anything
    /// else around it is not a timestamp.
    @Test func surroundingBlanksAndQuotesAreDropped() {
        let plain = Timestamp.parse("2026-11-21T09:30:00Z")
        #expect(plain != nil)
        for wrapped in [
            " 2026-11-21T09:30:00Z", "2026-11-21T09:30:00Z\t", "'2026-11-21T09:30:00Z'",
            "\"2026-11-21T09:30:00Z\"", " \"'2026-11-21T09:30:00Z' ",
        ] {
            #expect(Timestamp.parse(wrapped) == plain, "\(wrapped)")
        }
        for junk in ["", " ", "''", "é2026-11-21", "2026-11-21é", "x2026-11-21", "2026-11-21 x"] {
            #expect(Timestamp.parse(junk) == nil, "\(junk)")
        }
    }
}
