import Yams

/// Settings from `.notes/config.yml` (docs/spec.md §11). Every key is optional.
///
/// Unknown keys and bad values are reported as diagnostics carrying the file and line;
/// they are never ignored silently, and never make a command fail.
public struct WorkspaceConfig: Sendable {
    /// Extra globs to leave out of the walk (a pattern without `/` matches a name anywhere).
    public var ignore: [Glob] = []
    /// Files larger than this are listed but not indexed.
    public var indexMaxBytes: Int = 64 << 20
    /// Largest file returned whole by a read (larger ones need a line range).
    public var readMaxBytes: Int = 16 << 20
    /// The most an agent's `read_file` returns per answer (`limits.read_window_lines`/`_bytes`).
    public var readWindow: ReadWindow = .standard
    /// Largest file a write, edit or append may produce.
    public var writeMaxBytes: Int = 16 << 20
    /// Size past which `get_context` tells the agent context.md should be condensed (docs/spec.md
    /// §8.1).
    public var contextMaxBytes: Int = 16 << 10
    /// Protected paths and the agent's path rules.
    public var policy = PathPolicy()
    /// Whether agent and CLI writes add a provenance block to an existing Markdown file
    /// that has no front matter (new files always get one).
    public var stampExistingFiles = false
    /// The built-in agent's provider, models, prices and budgets.
    public var agent = AgentConfig()
    /// Problems found while reading the file.
    public var diagnostics: [Diagnostic] = []
    /// Set when the file could not be read as settings (not YAML, not a mapping, or a
    /// `protected:`/`policy:` entry that cannot be understood): the config fails closed for
    /// the agent (issue 34 item 9). Every path is then protected for the agent, or, in a
    /// long-lived process that had good settings, those stay in force (``keptLastGood``).
    /// The text names the file and line; every tool answer carries it.
    public var unreadableWarning: String?
    /// The settings are the last good ones; the file on disk is broken (``unreadableWarning``).
    public var keptLastGood = false

    /// Top-level keys this version understands (some belong to features that read them
    /// elsewhere: policy, agent, history...). Unknown ones are reported.
    public static let knownKeys: Set<String> = [
        "ignore", "protected", "policy", "limits", "context", "agent", "history", "templates",
        "stamp_existing_files",
    ]

    public init() {}

    /// The configuration of the workspace at `root`; defaults when the file is absent.
    public static func load(root: String) -> WorkspaceConfig {
        let path = root + "/.notes/config.yml"
        guard let bytes = try? FileBytes.read(path: path, maxBytes: 1 << 20) else {
            return WorkspaceConfig()
        }
        return parse(String(decoding: bytes, as: UTF8.self), sourcePath: ".notes/config.yml")
    }

    /// Parses configuration text; `sourcePath` is used in diagnostics.
    public static func parse(_ text: String, sourcePath: String) -> WorkspaceConfig {
        var config = WorkspaceConfig()
        func report(_ message: String, _ node: Node?) {
            config.diagnostics.append(
                Diagnostic(
                    path: sourcePath, code: .config, message: message,
                    line: node?.mark.map { $0.line }))
        }
        /// The file cannot be read as settings: protect every path for the agent.
        func failClosed(_ message: String, line: Int?) -> WorkspaceConfig {
            config.diagnostics.append(
                Diagnostic(path: sourcePath, code: .config, message: message, line: line))
            var closed = WorkspaceConfig()
            closed.diagnostics = config.diagnostics
            closed.policy = PathPolicy(protected: ["*"])
            closed.unreadableWarning =
                "\(sourcePath)\(line.map { " line \($0)" } ?? ""): \(message); every path is protected for the agent until the person fixes it"
            return closed
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            var line: Int?
            if let yaml = error as? YamlError {
                switch yaml {
                case .scanner(_, _, let mark, _), .parser(_, _, let mark, _),
                    .composer(_, _, let mark, _):
                    line = mark.line
                default: break
                }
            }
            let first =
                String(describing: error).split(separator: "\n").first.map(String.init) ?? ""
            return failClosed("config is not valid YAML: \(first)", line: line)
        }
        guard let root else { return config }
        guard let mapping = root.mapping else {
            return failClosed("config must be a mapping of settings", line: root.mark?.line)
        }
        var protected: [String] = []
        var rules: [(String, AccessRule)] = []
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
                        if let s = item.string, !s.isEmpty {
                            config.ignore.append(Glob(s))
                        } else {
                            report("ignore entries must be glob strings", item)
                        }
                    }
                } else if let s = value.string {
                    config.ignore.append(Glob(s))
                } else {
                    report("'ignore' must be a list of globs", value)
                }
            case "limits":
                guard let limits = value.mapping else {
                    report("'limits' must be a mapping", value)
                    continue
                }
                for (k, v) in limits {
                    switch k.string ?? "" {
                    case "index_max_bytes":
                        if let n = v.int, n > 0 {
                            config.indexMaxBytes = n
                        } else {
                            report("'limits.index_max_bytes' must be a positive integer", v)
                        }
                    case "read_window_lines":
                        if let n = v.int, n > 0 {
                            config.readWindow.lines = n
                        } else {
                            report("'limits.read_window_lines' must be a positive integer", v)
                        }
                    case "read_window_bytes":
                        if let n = v.int, n > 0 {
                            config.readWindow.bytes = n
                        } else {
                            report("'limits.read_window_bytes' must be a positive integer", v)
                        }
                    case "read_max_bytes":
                        if let n = v.int, n > 0 {
                            config.readMaxBytes = n
                        } else {
                            report("'limits.read_max_bytes' must be a positive integer", v)
                        }
                    case "write_max_bytes":
                        if let n = v.int, n > 0 {
                            config.writeMaxBytes = n
                        } else {
                            report("'limits.write_max_bytes' must be a positive integer", v)
                        }
                    default:
                        report("unknown setting 'limits.\(k.string ?? "")'", k)
                    }
                }
            case "protected":
                let items = value.sequence.map(Array.init) ?? (value.string != nil ? [value] : [])
                if items.isEmpty && value.sequence == nil {
                    report("'protected' must be a list of globs", value)
                }
                for item in items {
                    if let s = item.string, !s.isEmpty {
                        protected.append(s)
                    } else {
                        report("protected entries must be glob strings", item)
                    }
                }
            case "policy":
                guard let entries = value.mapping else {
                    report("'policy' must map globs to write, append, ask, read or deny", value)
                    continue
                }
                for (k, v) in entries {
                    guard let glob = k.string, !glob.isEmpty,
                        let rule = v.string.flatMap(AccessRule.init(rawValue:))
                    else {
                        // Fails closed for its paths: denied to the agent until fixed.
                        if let glob = k.string, !glob.isEmpty { rules.append((glob, .deny)) }
                        report(
                            "policy '\(k.string ?? "")' must be one of write, append, ask, read, deny (denied to the agent until it is fixed)",
                            v)
                        continue
                    }
                    rules.append((glob, rule))
                }
            case "context":
                guard let entries = value.mapping else {
                    report("'context' must be a mapping (max_bytes: 16384)", value)
                    continue
                }
                for (k, v) in entries {
                    switch k.string ?? "" {
                    case "max_bytes":
                        if let n = v.int, n > 0 {
                            config.contextMaxBytes = n
                        } else {
                            report("'context.max_bytes' must be a positive integer", v)
                        }
                    default:
                        report("unknown setting 'context.\(k.string ?? "")'", k)
                    }
                }
            case "agent":
                var agent = config.agent  // parsed apart: report() writes config.diagnostics
                agent.parse(value) { message, node in report(message, node) }
                config.agent = agent
            case "stamp_existing_files":
                if let b = value.bool {
                    config.stampExistingFiles = b
                } else {
                    report("'stamp_existing_files' must be true or false", value)
                }
            default:
                break  // read by the features that own them
            }
        }
        // A protection or rule that cannot be understood fails closed: dropping it silently
        // would let the agent read what the person meant to protect.
        if let problem = config.diagnostics.first(where: {
            ["'protected'", "protected entries", "'policy'"].contains(where: $0.message.hasPrefix)
        }) {
            config.diagnostics.removeAll { $0 == problem }
            return failClosed(problem.message, line: problem.line)
        }
        config.policy = PathPolicy(protected: protected, rules: rules)
        return config
    }
}
