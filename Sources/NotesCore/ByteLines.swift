/// The lines of a byte buffer, each keeping its line break, so that joining them gives the
/// exact bytes back (CRLF, a missing final newline and invalid UTF-8 survive a round trip).
public struct ByteLines: Sendable {
    public let lines: [ArraySlice<UInt8>]

    public init(_ bytes: [UInt8]) {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        for i in bytes.indices where bytes[i] == 0x0A {
            lines.append(bytes[start...i])
            start = i + 1
        }
        if start < bytes.count { lines.append(bytes[start...]) }
        self.lines = lines
    }

    public var count: Int { lines.count }

    /// The text of line `i` without its line break, for display.
    public func text(_ i: Int) -> String {
        var line = lines[i]
        if line.last == 0x0A { line = line.dropLast() }
        if line.last == 0x0D { line = line.dropLast() }
        return String(decoding: line, as: UTF8.self)
    }

    /// Whether line `i` holds only spaces and tabs.
    public func isBlank(_ i: Int) -> Bool {
        lines[i].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }
}
