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
