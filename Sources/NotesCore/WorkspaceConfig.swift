import Yams

/// Settings from `.notes/config.yml` (SPEC §11). Every key is optional.
///
/// Unknown keys and bad values are reported as diagnostics carrying the file and line;
/// they are never ignored silently, and never make a command fail.
public struct WorkspaceConfig: Sendable {
    /// Extra globs to leave out of the walk (a pattern without `/` matches a name anywhere).
    public var ignore: [Glob] = []
    /// Files larger than this are listed but not indexed.
    public var indexMaxBytes: Int = 64 << 20
    /// Problems found while reading the file.
    public var diagnostics: [Diagnostic] = []

    /// Top-level keys this version understands (some belong to features that read them
    /// elsewhere: policy, agent, history...). Unknown ones are reported.
    public static let knownKeys: Set<String> = [
        "ignore", "protected", "policy", "limits", "context", "agent", "history", "templates", "stamp_new_files",
    ]

    public init() {}

    /// The configuration of the workspace at `root`; defaults when the file is absent.
    public static func load(root: String) -> WorkspaceConfig {
        let path = root + "/.notes/config.yml"
        guard let bytes = try? FileBytes.read(path: path, maxBytes: 1 << 20) else { return WorkspaceConfig() }
        return parse(String(decoding: bytes, as: UTF8.self), sourcePath: ".notes/config.yml")
    }

    /// Parses configuration text; `sourcePath` is used in diagnostics.
    public static func parse(_ text: String, sourcePath: String) -> WorkspaceConfig {
        var config = WorkspaceConfig()
        func report(_ message: String, _ node: Node?) {
            config.diagnostics.append(Diagnostic(path: sourcePath, code: .config, message: message, line: node?.mark.map { $0.line }))
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            report("config is not valid YAML: \(String(describing: error).split(separator: "\n").first ?? "")", nil)
            return config
        }
        guard let root else { return config }
        guard let mapping = root.mapping else {
            report("config must be a mapping of settings", root)
            return config
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            guard knownKeys.contains(key) else {
                report("unknown setting '\(key)'", keyNode)
                continue
            }
            switch key {
            case "ignore":
                if let list = value.sequence {
                    for item in list {
                        if let s = item.string, !s.isEmpty { config.ignore.append(Glob(s)) } else { report("ignore entries must be glob strings", item) }
                    }
                } else if let s = value.string {
                    config.ignore.append(Glob(s))
                } else {
                    report("'ignore' must be a list of globs", value)
                }
            case "limits":
                guard let limits = value.mapping else { report("'limits' must be a mapping", value); continue }
                for (k, v) in limits {
                    switch k.string ?? "" {
                    case "index_max_bytes":
                        if let n = v.int, n > 0 { config.indexMaxBytes = n } else { report("'limits.index_max_bytes' must be a positive integer", v) }
                    case "read_max_bytes", "write_max_bytes", "line_max_bytes":
                        if (v.int ?? 0) <= 0 { report("'limits.\(k.string ?? "")' must be a positive integer", v) }
                    default:
                        report("unknown setting 'limits.\(k.string ?? "")'", k)
                    }
                }
            default:
                break  // read by the features that own them
            }
        }
        return config
    }
}
