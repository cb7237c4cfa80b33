/// A recoverable problem found in one file: reported by `notes status` and `notes index`,
/// never thrown. The file is still handled as well as it can be (e.g. its body indexed).
public struct Diagnostic: Hashable, Sendable, Codable {
    /// Stable identifiers for the kinds of problem.
    public enum Code: String, Sendable, Codable {
        case malformedFrontMatter = "malformed_front_matter"
        case unterminatedFrontMatter = "unterminated_front_matter"
        case frontMatterNotMapping = "front_matter_not_mapping"
        case frontMatterTooComplex = "front_matter_too_complex"
        case invalidUTF8 = "invalid_utf8"
        case binary = "binary"
        case unsupportedEncoding = "unsupported_encoding"
        case tooLarge = "too_large"
        case unreadable = "unreadable"
        case notRegularFile = "not_regular_file"
        case malformedChat = "malformed_chat"
        case config = "config"
    }

    public var path: String
    public var code: Code
    public var message: String
    /// 1-based line in the file, when the problem has one.
    public var line: Int?

    public init(path: String, code: Code, message: String, line: Int? = nil) {
        self.path = path
        self.code = code
        self.message = message
        self.line = line
    }
}
