import Foundation

/// Decides which names the walk leaves out (docs/spec.md §2): the tool's own `.notes/`, `.git/` and
/// every other dot-entry, editor and sync-client debris, and the config's `ignore:` globs.
/// Sync-conflict copies are not indexed but reported, so `notes status` can show them.
public struct IgnoreRules: Sendable {
    /// What the walk does with an entry.
    public enum Verdict: Equatable, Sendable {
        case include
        case ignore
        /// A sync client's conflict copy (`x.sync-conflict-…`, `x (… conflicted copy …)`).
        case conflictCopy
    }

    /// Extra globs from config.
    public var globs: [Glob]

    public init(globs: [Glob] = []) { self.globs = globs }

    private static let debrisSuffixes = [
        "~", ".swp", ".swo", ".swx", ".tmp", ".temp", ".icloud", ".part", ".crdownload", ".bak.tmp",
    ]
    private static let debrisSuffixBytes = debrisSuffixes.map { Array($0.utf8) }
    private static let conflictBytes = Array("conflict".utf8)
    private static let debrisNames: Set<String> = ["4913", "Thumbs.db", "desktop.ini", "Icon\r"]
    private static let debrisPrefixes = ["~syncthing~", "~$", ".#"]

    /// The verdict for the entry `name` at workspace-relative `path`.
    public func verdict(name: String, path: String) -> Verdict {
        // Byte-level checks on the name's UTF-8: this runs for every entry of every walk
        // (100k names in a no-change refresh of a large workspace), where Foundation's
        // string search, hashing for a set lookup and a lowercased copy per name dominated
        // the profile.
        var name = name
        let builtIn = name.withUTF8 { Self.builtInVerdict($0) }
        if builtIn == .ignore { return .ignore }
        for glob in globs {
            if glob.isAnchored ? glob.matches(path) : glob.matches(name) { return .ignore }
        }
        return builtIn
    }

    private static let debrisNameBytes = debrisNames.map { Array($0.utf8) }
    private static let debrisPrefixBytes = debrisPrefixes.map { Array($0.utf8) }

    /// The verdict of the fixed rules (dot-entries, debris, conflict copies) for a name.
    private static func builtInVerdict(_ name: UnsafeBufferPointer<UInt8>) -> Verdict {
        guard let first = name.first, first != UInt8(ascii: ".") else { return .ignore }
        for debris in debrisNameBytes where debris.count == name.count && name.elementsEqual(debris)
        { return .ignore }
        for prefix in debrisPrefixBytes where prefix[0] == first && name.starts(with: prefix) {
            return .ignore
        }
        for suffix in debrisSuffixBytes where name.hasSuffixIgnoringASCIICase(suffix) {
            return .ignore
        }
        // Every conflict-copy form contains "conflict": most names are out at once.
        if name.containsIgnoringASCIICase(conflictBytes),
            isConflictCopy(String(decoding: name, as: UTF8.self))
        {
            return .conflictCopy
        }
        return .include
    }

    /// Whether `name` looks like a sync client's conflict copy (Syncthing, Dropbox, Nextcloud).
    public static func isConflictCopy(_ name: String) -> Bool {
        // Every form below contains "conflict" (any case): most names are out at once.
        var name = name
        guard name.withUTF8({ $0.containsIgnoringASCIICase(Self.conflictBytes) }) else {
            return false
        }
        if name.contains(".sync-conflict-") { return true }
        let lower = name.lowercased()
        if lower.contains("conflicted copy") && lower.contains("(") { return true }
        if lower.contains(" (conflict") { return true }
        return false
    }

    /// The file a conflict copy belongs to, e.g. `a.sync-conflict-20260101-x.md` → `a.md`.
    public static func conflictBase(of path: String) -> String {
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        var name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        if let range = name.range(of: ".sync-conflict-") {
            let rest = name[range.upperBound...]
            let ext = rest.lastIndex(of: ".").map { String(rest[$0...]) } ?? ""
            name = String(name[..<range.lowerBound]) + ext
        } else if let open = name.range(of: " (", options: .backwards),
            let close = name[open.upperBound...].firstIndex(of: ")")
        {
            name = String(name[..<open.lowerBound]) + String(name[name.index(after: close)...])
        }
        return folder + name
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// Whether the bytes end with `suffix` (lowercase ASCII), ignoring ASCII case.
    func hasSuffixIgnoringASCIICase(_ suffix: [UInt8]) -> Bool {
        guard count >= suffix.count else { return false }
        var i = count - suffix.count
        for byte in suffix {
            let b = self[i]
            if b != byte && !(b >= 0x41 && b <= 0x5A && b | 0x20 == byte) { return false }
            i += 1
        }
        return true
    }

    /// Whether the bytes contain `needle` (lowercase ASCII letters), ignoring ASCII case.
    func containsIgnoringASCIICase(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard count >= needle.count else { return false }
        for start in 0...(count - needle.count) where self[start] | 0x20 == first {
            var matched = true
            for k in 1..<needle.count where self[start + k] | 0x20 != needle[k] {
                matched = false
                break
            }
            if matched { return true }
        }
        return false
    }
}
