import NotesCore
import Testing

@Suite struct TimestampTests {
    @Test func parsesDatesAndDateTimes() {
        #expect(Timestamp.parse("1970-01-02") == 86_400)
        #expect(Timestamp.parse("2026-11-21T09:30:00Z") == Timestamp.parse("2026-11-21T10:30:00+01:00"))
        #expect(Timestamp.parse("2026-11-21 09:30") == Timestamp.parse("2026-11-21T09:30:00Z"))
        #expect(Timestamp.parse("2026-11-21T09:30:00.5Z") == Timestamp.parse("2026-11-21T09:30:00Z")! + 0.5)
        #expect(Timestamp.parse("yesterday") == nil)
        #expect(Timestamp.parse("2026-13-01") == nil)
    }

    @Test func formatsUTCRoundTrip() {
        #expect(Timestamp.format(0) == "1970-01-01T00:00:00Z")
        let t = Timestamp.parse("2026-11-21T09:30:00Z")!
        #expect(Timestamp.format(t) == "2026-11-21T09:30:00Z")
        #expect(Timestamp.format(Timestamp.parse("2000-02-29T23:59:59Z")!) == "2000-02-29T23:59:59Z")
    }
}
