/// A path glob as users write them in filters and config: `*` and `?` stay inside one
/// path component, `**` crosses folders (`**/` also matches no folder), `[abc]` and
/// `[!abc]` are character classes.
///
/// Matching runs a dynamic program over (pattern position, path position), so no pattern
/// can make it take exponential time.
public struct Glob: Sendable, Hashable, CustomStringConvertible {
    enum Token: Hashable, Sendable {
        case literal(UInt8)
        case anyByte  // ?
        case star  // *
        case globstar  // ** (not followed by /)
        case globstarSlash  // **/
        case byteClass(Set<UInt8>, negated: Bool)
    }

    /// The pattern as written.
    public let pattern: String
    /// Whether letters compare without regard to ASCII case.
    public let caseInsensitive: Bool
    let tokens: [Token]
    /// The literal bytes the pattern starts and ends with (around its first and last
    /// wildcard): a path without them cannot match, which rejects most paths before the
    /// dynamic program (`*.pem` against a note's name, `.git` against `Research`).
    private let head: [UInt8]
    private let tail: [UInt8]
    /// Whether every token is a literal (then `head` is the whole pattern).
    private let isLiteral: Bool
    /// The longest run of literal bytes between two wildcards: a path that does not
    /// contain it cannot match either (`**/secrets/**`, protected by default, against every
    /// folder of every path the index flags: `HiddenFiles`).
    private let inner: [UInt8]

    public var description: String { pattern }

    /// Whether the pattern names a path (contains `/`) rather than a bare file name.
    public let isAnchored: Bool

    public init(_ pattern: String, caseInsensitive: Bool = false) {
        self.pattern = pattern
        self.caseInsensitive = caseInsensitive
        var tokens: [Token] = []
        let bytes = Array(pattern.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "*"):
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                    var j = i + 2
                    while j < bytes.count, bytes[j] == UInt8(ascii: "*") { j += 1 }
                    if j < bytes.count, bytes[j] == UInt8(ascii: "/") {
                        tokens.append(.globstarSlash)
                        i = j + 1
                    } else {
                        tokens.append(.globstar)
                        i = j
                    }
                    continue
                }
                tokens.append(.star)
            case UInt8(ascii: "?"):
                tokens.append(.anyByte)
            case UInt8(ascii: "["):
                if let close = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: "]")), close > i + 1 {
                    var set = Set<UInt8>()
                    var k = i + 1
                    var negated = false
                    if bytes[k] == UInt8(ascii: "!") || bytes[k] == UInt8(ascii: "^") {
                        negated = true
                        k += 1
                    }
                    while k < close {
                        if k + 2 < close, bytes[k + 1] == UInt8(ascii: "-") {
                            let lo = min(bytes[k], bytes[k + 2])
                            let hi = max(bytes[k], bytes[k + 2])
                            for c in lo...hi { set.insert(caseInsensitive ? Self.lower(c) : c) }
                            k += 3
                        } else {
                            set.insert(caseInsensitive ? Self.lower(bytes[k]) : bytes[k])
                            k += 1
                        }
                    }
                    tokens.append(.byteClass(set, negated: negated))
                    i = close + 1
                    continue
                }
                tokens.append(.literal(b))
            case UInt8(ascii: "\\") where i + 1 < bytes.count:
                tokens.append(.literal(caseInsensitive ? Self.lower(bytes[i + 1]) : bytes[i + 1]))
                i += 2
                continue
            default:
                tokens.append(.literal(caseInsensitive ? Self.lower(b) : b))
            }
            i += 1
        }
        self.tokens = tokens
        self.isAnchored = bytes.contains(UInt8(ascii: "/"))
        var head: [UInt8] = []
        for token in tokens {
            guard case .literal(let b) = token else { break }
            head.append(b)
        }
        var tail: [UInt8] = []
        if head.count < tokens.count {
            for token in tokens.reversed() {
                guard case .literal(let b) = token else { break }
                tail.append(b)
            }
            tail.reverse()
        }
        self.head = head
        self.tail = tail
        self.isLiteral = head.count == tokens.count
        var inner: [UInt8] = []
        var run: [UInt8] = []
        var afterWildcard = false
        for token in tokens {
            if case .literal(let b) = token {
                run.append(b)
                continue
            }
            if afterWildcard && run.count > inner.count { inner = run }
            run = []
            afterWildcard = true
        }
        self.inner = inner
    }

    @inline(__always)
    static func lower(_ b: UInt8) -> UInt8 { (b >= 65 && b <= 90) ? b + 32 : b }

    /// Whether the whole of `path` matches the pattern.
    public func matches(_ path: String) -> Bool {
        var bytes = Array(path.utf8)
        if caseInsensitive { for i in bytes.indices { bytes[i] = Self.lower(bytes[i]) } }
        return matches(bytes: bytes)
    }

    func matches(bytes s: [UInt8]) -> Bool {
        if isLiteral { return s == head }
        guard s.count >= head.count + tail.count, s.starts(with: head),
            s.suffix(tail.count).elementsEqual(tail)
        else { return false }
        if !inner.isEmpty && !Self.contains(s, inner) { return false }
        return matchesAfterPrefilter(s)
    }

    /// Whether `needle` occurs in `s`.
    static func contains(_ s: [UInt8], _ needle: [UInt8]) -> Bool {
        guard s.count >= needle.count else { return false }
        let first = needle[0]
        for start in 0...(s.count - needle.count) where s[start] == first {
            var k = 1
            while k < needle.count && s[start + k] == needle[k] { k += 1 }
            if k == needle.count { return true }
        }
        return false
    }

    /// The dynamic program alone (tests compare it with ``matches(bytes:)``).
    func matchesAfterPrefilter(_ s: [UInt8]) -> Bool {
        let slash = UInt8(ascii: "/")
        let n = s.count
        // reachable[i] == true: the tokens consumed so far can match s[0..<i].
        var reachable = [Bool](repeating: false, count: n + 1)
        reachable[0] = true
        for token in tokens {
            var next = [Bool](repeating: false, count: n + 1)
            switch token {
            case .literal(let c):
                for i in 0..<n where reachable[i] && s[i] == c { next[i + 1] = true }
            case .anyByte:
                for i in 0..<n where reachable[i] && s[i] != slash { next[i + 1] = true }
            case .byteClass(let set, let negated):
                for i in 0..<n where reachable[i] && s[i] != slash && set.contains(s[i]) != negated
                { next[i + 1] = true }
            case .star:
                var open = false
                for i in 0...n {
                    if reachable[i] { open = true }
                    if open { next[i] = true }
                    if i < n && s[i] == slash { open = false }
                }
            case .globstar:
                var open = false
                for i in 0...n {
                    if reachable[i] { open = true }
                    if open { next[i] = true }
                }
            case .globstarSlash:
                // Zero folders, or any run of characters ending with '/'.
                var open = false
                for i in 0...n {
                    if reachable[i] {
                        next[i] = true
                        open = true
                    }
                    if open && i < n && s[i] == slash { next[i + 1] = true }
                }
            }
            reachable = next
            if !reachable.contains(true) { return false }
        }
        return reachable[n]
    }
}
