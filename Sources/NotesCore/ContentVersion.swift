/// A file's version: the first 16 hex digits of the SHA-256 of its exact bytes (docs/spec.md §6.1).
///
/// It changes exactly when the bytes change, so a `touch` or a formatter that rewrites
/// identical bytes never looks like an edit. The full digest is kept as well, for rename
/// detection and the content-addressed history.
public struct ContentVersion: Hashable, Sendable, CustomStringConvertible {
    /// The full SHA-256 digest, 64 lowercase hex digits.
    public let digest: String

    /// The short version shown to people and agents.
    public var short: String { String(digest.prefix(16)) }
    public var description: String { short }

    public init(digest: String) { self.digest = digest }

    /// The version of `bytes`.
    public init<Bytes: Sequence>(of bytes: Bytes) where Bytes.Element == UInt8 {
        self.digest = SHA256.hex(of: bytes)
    }
}
