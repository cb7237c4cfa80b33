import CCurl
import Foundation
import Synchronization

/// HTTP over libcurl (one easy handle per exchange): timeouts, redirects, a response size
/// limit, compressed bodies, proxies from the environment (`https_proxy`, `http_proxy`,
/// `no_proxy`, as curl reads them), http and https only, and cancellation. Bodies either
/// come back whole or are handed to a stream consumer as they arrive (SSE).
///
/// Related libcurl documentation: https://curl.se/libcurl/c/libcurl-easy.html
public struct HTTPClient: Sendable {
    /// Sent as `User-Agent`.
    public var userAgent: String

    public init(userAgent: String = "notes/0.1") {
        self.userAgent = userAgent
    }

    /// Performs `request` and returns the whole response.
    public func perform(_ request: HTTPRequest, cancellation: Cancellation? = nil)
        throws(HTTPFailure) -> HTTPResponse
    {
        try run(request, cancellation: cancellation, stream: nil)
    }

    /// Performs `request`, handing each body chunk to `stream` with the response's status
    /// and headers as it arrives, instead of collecting it (the returned body is empty).
    public func perform(
        _ request: HTTPRequest, cancellation: Cancellation? = nil,
        stream: (_ status: Int, _ headers: [String: String], _ chunk: [UInt8]) -> StreamDecision
    ) throws(HTTPFailure) -> HTTPResponse {
        let outcome = withoutActuallyEscaping(stream) { consumer in
            Result { () throws(HTTPFailure) in
                try run(request, cancellation: cancellation, stream: consumer)
            }
        }
        return try outcome.get()
    }

    private func run(
        _ request: HTTPRequest, cancellation: Cancellation?,
        stream: ((Int, [String: String], [UInt8]) -> StreamDecision)?
    ) throws(HTTPFailure) -> HTTPResponse {
        // libcurl is loaded on the first transfer, not at process start (see CCurl/shim.h).
        if let problem = ccurl_load() {
            throw .failed(
                "libcurl is not available (\(String(cString: problem))); install it with `apt-get install libcurl4`"
            )
        }
        guard let handle = ccurl_easy_init() else {
            throw .failed("libcurl could not start a transfer")
        }
        defer { ccurl_easy_cleanup(handle) }
        let state = TransferState(
            limit: request.maxResponseBytes, cancellation: cancellation, stream: stream)
        let context = Unmanaged.passUnretained(state).toOpaque()
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { ccurl_slist_free_all(headerList) }

        ccurl_setopt_string(handle, CURLOPT_URL, request.url)
        ccurl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        ccurl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        ccurl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        ccurl_setopt_long(handle, CURLOPT_MAXREDIRS, request.maxRedirects)
        ccurl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout * 1000))
        if request.totalTimeout > 0 {
            ccurl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(request.totalTimeout * 1000))
        }
        if request.idleTimeout > 0 {
            ccurl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, 1)
            ccurl_setopt_long(
                handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(request.idleTimeout.rounded(.up))))
        }
        ccurl_setopt_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(request.maxResponseBytes))
        if request.acceptCompressed { ccurl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, "") }
        ccurl_setopt_string(handle, CURLOPT_USERAGENT, userAgent)
        switch request.method {
        case "GET": ccurl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case "HEAD": ccurl_setopt_long(handle, CURLOPT_NOBODY, 1)
        default: ccurl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
        }
        if let body = request.body {
            let bytes = body.isEmpty ? [0] : body
            bytes.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { chars in
                    _ = ccurl_setopt_body(handle, chars.baseAddress!, curl_off_t(body.count))
                }
            }
        }
        for header in request.headers {
            let line = header.value.isEmpty ? "\(header.name);" : "\(header.name): \(header.value)"
            headerList = ccurl_slist_append(headerList, line)
        }
        if let headerList { ccurl_setopt_list(handle, CURLOPT_HTTPHEADER, headerList) }

        ccurl_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        ccurl_setopt_write_callback(handle) { data, size, count, context in
            let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
            return state.receive(UnsafeRawBufferPointer(start: data, count: size * count))
                ? size * count : 0
        }
        ccurl_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        ccurl_setopt_header_callback(handle) { data, size, count, context in
            let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
            state.header(UnsafeRawBufferPointer(start: data, count: size * count))
            return size * count
        }
        ccurl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        ccurl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context)
        ccurl_setopt_progress_callback(handle) { context, _, _, _, _ in
            let state = Unmanaged<TransferState>.fromOpaque(context!).takeUnretainedValue()
            return state.cancellation?.isCancelled == true ? 1 : 0
        }

        let code = ccurl_easy_perform(handle)
        var redirects = 0
        ccurl_getinfo_long(handle, CURLINFO_REDIRECT_COUNT, &redirects)
        var finalURL: UnsafeMutablePointer<CChar>?
        ccurl_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &finalURL)
        let answeredURL = finalURL.map { String(cString: $0) } ?? request.url

        if code != CURLE_OK {
            if let reason = state.stopReason {
                switch reason {
                case .tooLarge: throw .tooLarge(request.maxResponseBytes)
                case .cancelled: throw .cancelled
                case .consumerStopped: break  // the consumer has what it wanted
                }
            } else {
                throw Self.failure(code, url: request.url, timeouts: request)
            }
        }
        var status = 0
        ccurl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(
            status: status == 0 ? state.status : status, headers: state.headers, body: state.body,
            finalURL: answeredURL, redirects: redirects)
    }

    /// Maps curl's error codes onto what a caller decides by: offline, timeout, too large…
    static func failure(_ code: CURLcode, url: String, timeouts: HTTPRequest) -> HTTPFailure {
        let text = String(cString: ccurl_easy_strerror(code))
        let host = URLParts(url).host
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST: return .offline("cannot resolve \(host)")
        case CURLE_COULDNT_RESOLVE_PROXY: return .offline("cannot resolve the proxy (\(text))")
        case CURLE_COULDNT_CONNECT: return .offline("cannot connect to \(host) (\(text))")
        case CURLE_OPERATION_TIMEDOUT: return .timeout("no complete answer from \(host) in time")
        case CURLE_FILESIZE_EXCEEDED: return .tooLarge(timeouts.maxResponseBytes)
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM:
            return .connectionLost("\(host): \(text)")
        case CURLE_UNSUPPORTED_PROTOCOL: return .failed("only http and https URLs can be fetched")
        case CURLE_URL_MALFORMAT: return .failed("not a valid URL: \(url.prefix(200))")
        case CURLE_TOO_MANY_REDIRECTS:
            return .failed("too many redirects from \(host) (more than \(timeouts.maxRedirects))")
        default: return .failed("\(host): \(text)")
        }
    }
}

/// The mutable side of one transfer, reached from curl's C callbacks.
private final class TransferState {
    enum StopReason { case tooLarge, cancelled, consumerStopped }

    let limit: Int
    let cancellation: Cancellation?
    let stream: ((Int, [String: String], [UInt8]) -> StreamDecision)?
    var status = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    var received = 0
    var stopReason: StopReason?

    init(
        limit: Int, cancellation: Cancellation?,
        stream: ((Int, [String: String], [UInt8]) -> StreamDecision)?
    ) {
        self.limit = limit
        self.cancellation = cancellation
        self.stream = stream
    }

    func header(_ raw: UnsafeRawBufferPointer) {
        let line = String(decoding: raw, as: UTF8.self).trimmingSpaces()
        if line.hasPrefix("HTTP/") {
            // A new response (a redirect's target, or the answer after 100 Continue).
            headers = [:]
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        headers[name] = String(line[line.index(after: colon)...]).trimmingSpaces()
    }

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if cancellation?.isCancelled == true {
            stopReason = .cancelled
            return false
        }
        received += chunk.count
        if received > limit {
            stopReason = .tooLarge
            return false
        }
        if let stream {
            if stream(status, headers, Array(chunk)) == .stop {
                stopReason = .consumerStopped
                return false
            }
        } else {
            body.append(contentsOf: chunk)
        }
        return true
    }
}
