import CCurl
import Foundation
import Synchronization

/// The scheme and host of a URL, for messages and cache keys (no full parsing needed).
public struct URLParts: Sendable {
    public var scheme: String
    public var host: String
    /// The path without query or fragment ("/" when empty).
    public var path: String

    public init(_ url: String) {
        var rest = Substring(url)
        if let range = rest.range(of: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        } else {
            scheme = ""
        }
        let hostEnd =
            rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<hostEnd]
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        host = String(authority).lowercased()
        let afterHost = rest[hostEnd...]
        let pathEnd = afterHost.firstIndex(where: { $0 == "?" || $0 == "#" }) ?? afterHost.endIndex
        let p = String(afterHost[..<pathEnd])
        path = p.isEmpty ? "/" : p
    }
}
