/// One HTTP request and the limits it runs under.
public struct HTTPRequest: Sendable {
    public var url: String
    public var method: String
    /// Header lines in order, e.g. `("content-type", "application/json")`.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]?
    /// Seconds to establish the connection (DNS, TCP, TLS).
    public var connectTimeout: Double = 10
    /// Seconds for the whole transfer; 0 for none (a long streamed answer).
    public var totalTimeout: Double = 120
    /// Seconds without a single byte received before giving up; 0 for none. A streamed
    /// answer that stalls is caught by this rather than by the total timeout.
    public var idleTimeout: Double = 60
    public var followRedirects = true
    public var maxRedirects = 5
    /// The largest body accepted; a bigger one ends the transfer with ``HTTPFailure/tooLarge(_:)``.
    public var maxResponseBytes = 16 << 20
    /// Ask for compressed bodies (gzip, deflate) and decode them.
    public var acceptCompressed = true

    public init(
        url: String, method: String = "GET", headers: [(name: String, value: String)] = [],
        body: [UInt8]? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

/// A completed HTTP exchange.
public struct HTTPResponse: Sendable {
    /// The final response's status (after redirects).
    public var status: Int
    /// The final response's headers, names lowercased (a repeated header keeps the last).
    public var headers: [String: String]
    /// The body, unless the caller consumed it as a stream.
    public var body: [UInt8]
    /// The URL that answered, after redirects.
    public var finalURL: String
    public var redirects: Int

    public init(
        status: Int, headers: [String: String], body: [UInt8], finalURL: String, redirects: Int
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.finalURL = finalURL
        self.redirects = redirects
    }

    /// `Retry-After` in seconds, when the server sent a number.
    public var retryAfter: Double? {
        headers["retry-after"].flatMap { Double($0.trimmingSpaces()) }
    }
}

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

extension String {
    /// Without leading and trailing spaces, tabs, CR and LF (by scalar: "\r\n" is one Character).
    func trimmingSpaces() -> String {
        var scalars = Substring(self).unicodeScalars[...]
        let blank: (Unicode.Scalar) -> Bool = {
            $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n"
        }
        while let c = scalars.first, blank(c) { scalars.removeFirst() }
        while let c = scalars.last, blank(c) { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
