extension StringProtocol {
    /// The lines of the text, split at `\n` bytes, each without its line break (a trailing
    /// `\r` of CRLF or a lone `\r` at the end of a line is dropped).
    ///
    /// Swift treats `"\r\n"` as one `Character`, so `split(separator: "\n")` does not split
    /// CRLF text at all; this works on UTF-8 bytes instead. A text ending with a line break
    /// yields a last empty line, as `split(..., omittingEmptySubsequences: false)` would.
    public func lines() -> [Substring] {
        let text = Substring(self)
        let utf8 = text.utf8
        var result: [Substring] = []
        var start = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            if utf8[index] == 0x0A {
                var end = index
                if end > start, utf8[utf8.index(before: end)] == 0x0D { end = utf8.index(before: end) }
                result.append(Substring(utf8[start..<end]))
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        var end = utf8.endIndex
        if end > start, utf8[utf8.index(before: end)] == 0x0D { end = utf8.index(before: end) }
        result.append(Substring(utf8[start..<end]))
        return result
    }
}
