/// The most an agent's read returns in one answer (issue 32): whole lines, up to `lines`
/// of them and `bytes` bytes, whichever comes first (at least one line).
public struct ReadWindow: Sendable, Equatable {
    public var lines: Int
    public var bytes: Int
    public init(lines: Int, bytes: Int) {
        self.lines = lines
        self.bytes = bytes
    }
    /// 2,000 lines or 64 KB (`limits.read_window_lines`, `limits.read_window_bytes`).
    public static let standard = ReadWindow(lines: 2_000, bytes: 64 << 10)
}
