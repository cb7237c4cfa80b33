/// Why an HTTP exchange did not complete. Statuses (404, 429, 500…) are not failures:
/// they are responses.
public enum HTTPFailure: Error, Sendable, Equatable {
    /// No connection: the name does not resolve, or nothing answers (refused, unreachable).
    case offline(String)
    /// The connection or the transfer took too long.
    case timeout(String)
    /// The body is bigger than the request's limit (the limit, in bytes).
    case tooLarge(Int)
    /// The connection broke while the answer was coming in.
    case connectionLost(String)
    /// The caller cancelled (SIGINT, or the stream consumer said stop).
    case cancelled
    /// Anything else curl reports: a bad URL, an unsupported scheme, TLS, too many redirects.
    case failed(String)

    /// One line for a person.
    public var message: String {
        switch self {
        case .offline(let why): return "offline: \(why)"
        case .timeout(let why): return "timed out: \(why)"
        case .tooLarge(let limit): return "the response is larger than the limit of \(limit) bytes"
        case .connectionLost(let why): return "the connection broke: \(why)"
        case .cancelled: return "cancelled"
        case .failed(let why): return why
        }
    }
}
