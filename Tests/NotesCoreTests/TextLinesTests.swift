import NotesCore
import Testing

@Suite struct TextLinesTests {
    @Test func splitsLFAndCRLFAlike() {
        #expect("a\r\nb\r\nc".lines() == ["a", "b", "c"])
        #expect("a\nb\n".lines() == ["a", "b", ""])
        #expect("a\r\n\r\nb".lines() == ["a", "", "b"])
        #expect("".lines() == [""])
        #expect("é\r\n😀".lines() == ["é", "😀"])
    }
}
