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
