import Foundation
import NotesCore
import NotesNetwork
import NotesStore

/// The outcome of a fetch.
public struct FetchResult: Codable, Sendable, Equatable {
    public var path: String
    public var version: String
    /// Bytes in the file now.
    public var bytes: Int
    /// True when the server said the page has not changed (304) and nothing was written.
    public var cached: Bool
    public var url: String
    /// Where the page was found, after redirects.
    public var finalURL: String
    public var status: Int
    public var contentType: String?
    public var created: Bool
    /// False when the file already held exactly the downloaded text (nothing written).
    public var changed = true
    public var warnings: [String] = []

    enum CodingKeys: String, CodingKey {
        case path, version, bytes, cached, url, status, created, changed, warnings
        case finalURL = "final_url", contentType = "content_type"
    }
}

/// Downloads a page or a text into the workspace (docs/spec.md §9.4), for `notes fetch` and the
/// `fetch_url` tool: http and https only, redirects, timeouts, a size limit, a cache by
/// ETag / Last-Modified, Latin-1 and Windows-1252 bodies converted to UTF-8, and
/// `source_url` / `fetched_at` in the front matter of Markdown targets. The file is
/// written through ``NoteStore`` (the agent's guard applies to agents); nothing in the
/// workspace changes unless the whole body arrived.
public struct WebFetch: Sendable {
    public let store: NoteStore
    public var client: HTTPClient
    /// Seconds for the whole download.
    public var timeout: Double = 60
    public var connectTimeout: Double = 10
    /// Largest body accepted (default: the workspace's write limit).
    public var maxBytes: Int

    public init(store: NoteStore, client: HTTPClient = HTTPClient()) {
        self.store = store
        self.client = client
        self.maxBytes = store.workspace.config.writeMaxBytes
    }

    /// Fetches `url` into `target` (or a path chosen from the URL: `Fetched/<host>/<name>`).
    public func fetch(
        _ url: String, to target: String?, by author: Author, cancellation: Cancellation? = nil,
        now: Double = Timestamp.now()
    ) throws(NotesError) -> FetchResult {
        let url = url.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = URLParts(url)
        guard parts.scheme == "http" || parts.scheme == "https", !parts.host.isEmpty else {
            throw NotesError(
                .invalidArgument, "'\(url.prefix(200))' is not an http or https URL",
                hint:
                    "give a full address such as https://www.gutenberg.org/cache/epub/2701/pg2701.txt"
            )
        }
        guard !url.contains(where: { $0 == " " || $0 == "\n" || $0 == "\0" }) else {
            throw NotesError(
                .invalidArgument, "the URL contains spaces or control characters",
                hint: "percent-encode them (%20)")
        }
        var cache = FetchCache(workspaceRoot: store.workspace.root)
        let cached = cache[url]
        let requestedPath = try target.map { raw throws(NotesError) in
            try WorkspacePath.normalize(raw)
        }
        // Check the target before downloading: a refused path should not cost the download.
        if let requestedPath { _ = try store.writablePath(requestedPath, by: author) }

        // Conditional request only when the file is still exactly what the last fetch wrote.
        var current: ReadResult?
        let knownPath = requestedPath ?? cached?.path
        if let knownPath { current = try? store.read(knownPath, limit: 1, by: author) }
        var request = HTTPRequest(url: url)
        request.totalTimeout = timeout
        request.connectTimeout = min(connectTimeout, timeout)
        request.idleTimeout = min(30, timeout)
        request.maxResponseBytes = maxBytes
        request.headers.append(
            (
                "accept",
                "text/markdown, text/plain;q=0.9, text/*;q=0.8, application/json;q=0.5, */*;q=0.1"
            ))
        if let cached, let current, cached.path == current.path, cached.version == current.version {
            if let etag = cached.etag { request.headers.append(("if-none-match", etag)) }
            if let modified = cached.lastModified {
                request.headers.append(("if-modified-since", modified))
            }
        }

        let response: HTTPResponse
        do {
            response = try client.perform(request, cancellation: cancellation)
        } catch {
            throw Self.error(error, url: url)
        }
        if response.status == 304, let cached, let current, cached.version == current.version {
            var result = FetchResult(
                path: current.path, version: current.version, bytes: current.size, cached: true,
                url: url,
                finalURL: response.finalURL, status: 304,
                contentType: response.headers["content-type"], created: false)
            result.changed = false
            return result
        }
        try Self.check(response, url: url)

        let contentType = response.headers["content-type"]
        let text = try Self.text(of: response.body, contentType: contentType, url: url)
        let path =
            requestedPath ?? cached?.path ?? Self.defaultPath(for: parts, contentType: contentType)
        let stamp = Timestamp.format(now)
        let content =
            FileFormat(path: path) == .markdown
            ? Self.withSource(text, url: url, fetchedAt: stamp) : text

        if current == nil || current?.path != path {
            current = try? store.read(path, limit: 1, by: author)
        }
        var options = ChangeOptions(expectedVersion: current?.version)
        options.includeDiff = false
        let change = try store.write(path, content: content, options: options, by: author)
        guard let version = change.version else {
            // Policy `ask`: stored as a proposal for the person to review.
            throw NotesError(
                .policyDenied,
                "\(path) takes proposals only: the download was stored as proposal \(change.proposal ?? "")",
                hint: "the person reviews it with `notes review`")
        }
        let written =
            (try? FileManager.default.attributesOfItem(
                atPath: store.workspace.absolutePath(change.path))[.size] as? Int)
            ?? content.utf8.count
        var result = FetchResult(
            path: change.path, version: version, bytes: written, cached: false, url: url,
            finalURL: response.finalURL, status: response.status, contentType: contentType,
            created: change.created)
        result.warnings = change.warnings
        result.changed = change.changed
        cache.store(
            FetchCache.Entry(
                path: change.path, version: version, etag: response.headers["etag"],
                lastModified: response.headers["last-modified"], fetchedAt: stamp), for: url)
        return result
    }

    // MARK: Pieces

    static func error(_ failure: HTTPFailure, url: String) -> NotesError {
        switch failure {
        case .offline, .timeout, .connectionLost:
            return NotesError(
                .offline, "cannot fetch \(url.prefix(200)): \(failure.message)",
                hint: "check the network and the address; nothing was written")
        case .tooLarge(let limit):
            return NotesError(
                .tooLarge, "\(url.prefix(200)) is larger than the limit of \(limit) bytes",
                hint: "nothing was written; raise limits.write_max_bytes or use --max-bytes")
        case .cancelled:
            return NotesError(
                .offline, "the download of \(url.prefix(200)) was cancelled",
                hint: "nothing was written")
        case .failed(let why):
            return NotesError(
                .invalidArgument, "cannot fetch \(url.prefix(200)): \(why)",
                hint: "check the address")
        }
    }

    static func check(_ response: HTTPResponse, url: String) throws(NotesError) {
        switch response.status {
        case 200..<300: return
        case 404, 410:
            throw NotesError(
                .notFound, "\(url.prefix(200)) answered \(response.status): there is no such page",
                hint: "check the address")
        case 429, 500...599:
            throw NotesError(
                .offline,
                "\(url.prefix(200)) answered \(response.status): the server is unavailable",
                hint: "try again later; nothing was written")
        default:
            throw NotesError(
                .invalidArgument, "\(url.prefix(200)) answered \(response.status)",
                hint: "the server refused the request; nothing was written")
        }
    }

    /// The body as text: UTF-8 (a BOM dropped), or Latin-1 / Windows-1252 converted; binary
    /// content types and bodies with NUL bytes are `not_text`.
    static func text(of body: [UInt8], contentType: String?, url: String) throws(NotesError)
        -> String
    {
        let type = (contentType ?? "").lowercased()
        let mime =
            type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let textual =
            mime.isEmpty || mime.hasPrefix("text/") || mime.hasSuffix("+xml")
            || mime.hasSuffix("+json")
            || [
                "application/json", "application/xml", "application/javascript",
                "application/x-yaml", "application/yaml",
            ].contains(mime)
        guard textual, !body.contains(0) else {
            throw NotesError(
                .notText, "\(url.prefix(200)) is \(mime.isEmpty ? "binary" : mime), not text",
                hint: "notes stores text pages only")
        }
        var bytes = body[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let charset =
            type.range(of: "charset=").map {
                String(type[$0.upperBound...]).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\"' ;"))
            } ?? ""
        let declaredSingleByte = [
            "iso-8859-1", "latin1", "iso-8859-15", "windows-1252", "cp1252", "us-ascii",
        ].contains(charset)
        if !declaredSingleByte || charset == "us-ascii",
            let text = String(validating: bytes, as: UTF8.self)
        {
            return text
        }
        if let text = String(bytes: Array(bytes), encoding: .windowsCP1252)
            ?? String(bytes: Array(bytes), encoding: .isoLatin1)
        {
            return text
        }
        throw NotesError(
            .notText,
            "\(url.prefix(200)) is not valid text in \(charset.isEmpty ? "UTF-8" : charset)",
            hint: "notes stores text pages only")
    }

    /// `Fetched/<host>/<last path component>`, with an extension from the content type
    /// when the URL has none.
    static func defaultPath(for url: URLParts, contentType: String?) -> String {
        let host = url.host.split(separator: ":").first.map(String.init) ?? "site"
        var name = url.path.split(separator: "/").last.map(String.init) ?? "index"
        name = name.removingPercentEncoding ?? name
        name = String(
            name.map {
                $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" ? $0 : "-"
            }.prefix(100))
        if name.isEmpty || name.hasPrefix(".") { name = "index" + name }
        let known = ["md", "markdown", "txt", "json", "html", "htm", "csv", "xml", "yml", "yaml"]
        let ext = (name as NSString).pathExtension.lowercased()
        if !known.contains(ext) {
            let type = (contentType ?? "").lowercased()
            if type.contains("markdown") {
                name += ".md"
            } else if type.contains("html") {
                name += ".html"
            } else if type.contains("json") {
                name += ".json"
            } else {
                name += ".txt"
            }
        }
        return "Fetched/\(host)/\(name)"
    }

    /// Adds `source_url` and `fetched_at` to a Markdown page's front matter (inserted as
    /// lines: the page's own YAML is never re-serialised).
    static func withSource(_ text: String, url: String, fetchedAt: String) -> String {
        let quoted =
            "\""
            + url.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(
                of: "\"", with: "\\\"") + "\""
        let lines = "source_url: \(quoted)\nfetched_at: \(fetchedAt)\n"
        if text.hasPrefix("---\n") || text.hasPrefix("---\r\n") {
            let afterOpening = text.index(
                text.startIndex, offsetBy: text.hasPrefix("---\n") ? 4 : 5)
            let rest = String(text[afterOpening...])
            // Drop keys from an earlier fetch so that they appear once.
            let kept = Self.dropKeys(["source_url", "fetched_at"], fromFrontMatterOf: rest)
            return "---\n" + lines + kept
        }
        return "---\n" + lines + "---\n\n" + text
    }

    private static func dropKeys(_ keys: [String], fromFrontMatterOf rest: String) -> String {
        var out: [Substring] = []
        var inFrontMatter = true
        for line in rest.split(separator: "\n", omittingEmptySubsequences: false) {
            if inFrontMatter, line == "---" || line == "---\r" { inFrontMatter = false }
            if inFrontMatter, keys.contains(where: { line.hasPrefix($0 + ":") }) { continue }
            out.append(line)
        }
        return out.joined(separator: "\n")
    }
}
