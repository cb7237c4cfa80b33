import Foundation

/// Protected paths and the agent's path policy (docs/spec.md §10).
///
/// Matching happens on a canonical form of the path: Unicode NFC, case-folded, with the
/// code points some filesystems ignore (zero-width and bidi controls) removed, and the
/// NTFS short name `git~1` read as `.git`. So `.GIT/config`, `.g\u{200C}it/config` and a
/// decomposed `café` all meet the rule written for their plain form, whether or not the
/// path exists yet.
public struct PathPolicy: Sendable {
    /// Invisible to the agent and never written by it, as is every hidden (dot) name. A
    /// pattern without `/` matches a
    /// name at any depth; a folder's pattern covers everything below it.
    public var protected: [Glob]
    /// Rules in order of precedence (config entries first, then the defaults); the first
    /// match wins. Patterns are paths from the workspace root.
    public var rules: [(glob: Glob, rule: AccessRule)]

    /// Always protected; config can add to this list, not remove from it.
    public static let defaultProtected = [
        ".notes", ".git", ".env*", "**/secrets/**", "secrets", "*.pem", "*.key",
    ]
    /// docs/spec.md §10's example defaults: the journal and context.md are append-only for the
    /// agent.
    public static let defaultRules: [(String, AccessRule)] = [
        ("Journal/**", .append), ("context.md", .append),
    ]

    public init(protected: [String] = [], rules: [(String, AccessRule)] = []) {
        self.protected = (Self.defaultProtected + protected).map {
            Glob(Self.canonical($0), caseInsensitive: true)
        }
        self.rules = (rules + Self.defaultRules).map {
            (Glob(Self.canonical($0.0), caseInsensitive: true), $0.1)
        }
    }

    /// Identifies what this policy hides: its protected patterns and rules, in order. Two
    /// policies with the same fingerprint hide the same paths (the search index stores each
    /// file's verdict under it, `HiddenFiles`). The leading version changes with the rules
    /// of matching themselves.
    public var fingerprint: String {
        var text = "1"
        for glob in protected { text += "\u{1F}p" + glob.pattern }
        for (glob, rule) in rules { text += "\u{1F}" + rule.rawValue + ":" + glob.pattern }
        return text
    }

    /// Whether `relative` (a normalised workspace path) is protected.
    public func isProtected(_ relative: String) -> Bool {
        isProtected(canonicalBytes: Array(Self.canonical(relative).utf8))
    }

    /// ``isProtected(_:)`` for a path already in ``canonical(_:)`` form, as bytes.
    private func isProtected(canonicalBytes path: [UInt8]) -> Bool {
        // On the canonical form's bytes: it is already case-folded, so the globs (ASCII
        // case-insensitive) can skip lowering a copy per call. The index asks this of every
        // file it writes (`files.hidden`).
        let slash = UInt8(ascii: "/")
        let components = path.split(separator: slash).map(Array.init)
        // Hidden names are outside what the walk shows, so an agent writing there would be
        // invisible (and `.obsidian/`, `.vscode/` and the like hold configuration).
        if components.contains(where: { $0.first == UInt8(ascii: ".") }) { return true }
        for glob in protected {
            if glob.isAnchored {
                // The path itself or any folder above it.
                var prefix: [UInt8] = []
                prefix.reserveCapacity(path.count)
                for component in components {
                    if !prefix.isEmpty { prefix.append(slash) }
                    prefix += component
                    if glob.matches(bytes: prefix) { return true }
                }
            } else if components.contains(where: { glob.matches(bytes: $0) }) {
                return true
            }
        }
        return false
    }

    /// The rule for `relative`; `.deny` for protected paths.
    public func rule(for relative: String) -> AccessRule {
        let path = Array(Self.canonical(relative).utf8)
        if isProtected(canonicalBytes: path) { return .deny }
        // The globs are case-insensitive on ASCII, and the canonical form is lowercase.
        for (glob, rule) in rules where glob.matches(bytes: path) { return rule }
        return .write
    }

    /// Whether folder `relative` is hidden from the agent: denied itself, or everything in
    /// it is (`private/**: deny` hides the folder `private`, not only its files).
    public func hidesFolder(_ relative: String) -> Bool {
        rule(for: relative) == .deny || rule(for: relative + "/\u{1}") == .deny
    }

    /// Code points that some filesystems ignore in names (HFS+), so they can hide a name.
    static let ignorable: Set<UInt32> = Set(
        Array(0x200B...0x200F) + Array(0x202A...0x202E) + Array(0x2060...0x206F) + [0xFEFF, 0x00AD])

    /// The form used for matching: NFC, lowercased, ignorable code points removed, `git~1` → `.git`.
    public static func canonical(_ path: String) -> String {
        // ASCII paths (most) are already NFC and hold no ignorable code points: lowercasing
        // is all there is, without Foundation's normalisation (far slower; an agent
        // search checks every matching file's path).
        if path.utf8.allSatisfy({ $0 < 0x80 }) {
            let bytes = path.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            let lower = String(decoding: bytes, as: UTF8.self)
            guard Self.containsGitShortName(bytes) else { return lower }
            return lower.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0 == "git~1" ? ".git" : String($0) }
                .joined(separator: "/")
        }
        return canonicalUnicode(path)
    }

    /// ``canonical(_:)`` for any path, through Foundation's normalisation.
    /// Whether lowercase ASCII `bytes` contain `git~1` (on bytes: Foundation's substring
    /// search cost more than the rest of the canonical form).
    private static func containsGitShortName(_ bytes: [UInt8]) -> Bool {
        let needle = Array("git~1".utf8)
        guard bytes.count >= needle.count else { return false }
        for start in 0...(bytes.count - needle.count) where bytes[start] == needle[0] {
            if bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    static func canonicalUnicode(_ path: String) -> String {
        let composed = path.precomposedStringWithCanonicalMapping.lowercased()
        var scalars = String.UnicodeScalarView()
        for scalar in composed.unicodeScalars where !ignorable.contains(scalar.value) {
            scalars.append(scalar)
        }
        return String(scalars).split(separator: "/", omittingEmptySubsequences: false)
            .map { $0 == "git~1" ? ".git" : String($0) }
            .joined(separator: "/")
    }
}
