import Yams

/// The built-in agent's settings (`agent:` in `.notes/config.yml`, docs/spec.md §9.1 and §11):
/// provider, base URL, model tiers, prices, budgets and retries. Keys never live here:
/// they come from the environment only.
public struct AgentConfig: Sendable, Equatable {
    /// Per-million-token prices of one model, in US dollars.
    public struct Price: Sendable, Equatable {
        public var input: Double
        public var output: Double
        public init(input: Double, output: Double) {
            self.input = input
            self.output = output
        }
    }

    /// `anthropic` or `openai`; nil: chosen from the environment's keys.
    public var provider: String?
    /// Overrides `ANTHROPIC_BASE_URL` / `OPENAI_BASE_URL` and the defaults.
    public var baseURL: String?
    /// Tier (`fast`, `balanced`, `powerful`) → model id, per provider.
    public var tiers: [String: [String: String]] = [
        "anthropic": [
            "fast": "claude-haiku-4-5", "balanced": "claude-sonnet-4-5",
            "powerful": "claude-opus-4-5",
        ],
        "openai": ["fast": "gpt-4.1-mini", "balanced": "gpt-4.1", "powerful": "o3"],
    ]
    public var defaultTier = "balanced"
    /// Model id → price; a model without a price has an unknown cost.
    public var prices: [String: Price] = [
        "claude-haiku-4-5": Price(input: 1, output: 5),
        "claude-sonnet-4-5": Price(input: 3, output: 15),
        "claude-opus-4-5": Price(input: 5, output: 25),
        "gpt-4.1-mini": Price(input: 0.4, output: 1.6),
        "gpt-4.1": Price(input: 2, output: 8),
        "o3": Price(input: 2, output: 8),
    ]
    /// Model requests per session before it stops (resumable with a larger budget).
    public var maxTurns = 30
    /// Input plus output tokens per session before it stops.
    public var maxTokens = 1_000_000
    /// The largest answer one request may produce.
    public var maxOutputTokens = 8192
    /// Tool results longer than this are cut (the agent is told to page with offset/limit).
    public var maxToolResultBytes = 60_000
    /// Attempts per request on 429 / 5xx / overloaded before stopping.
    public var retryAttempts = 5
    /// First retry delay; it doubles each time (with jitter), capped at 60 s.
    public var retryBaseDelay = 1.0
    /// Seconds without any byte from the API before the request is retried.
    public var idleTimeout = 120.0

    public init() {}

    public static let tierNames = ["fast", "balanced", "powerful"]

    /// Reads the `agent:` mapping, reporting bad keys and values through `report`.
    mutating func parse(_ node: Node, report: (String, Node?) -> Void) {
        guard let mapping = node.mapping else {
            report("'agent' must be a mapping (provider, base_url, tiers, prices…)", node)
            return
        }
        for (keyNode, value) in mapping {
            let key = keyNode.string ?? ""
            switch key {
            case "provider":
                if let s = value.string, ["anthropic", "openai"].contains(s) {
                    provider = s
                } else {
                    report("'agent.provider' must be anthropic or openai", value)
                }
            case "base_url":
                if let s = value.string, s.hasPrefix("http://") || s.hasPrefix("https://") {
                    baseURL = s
                } else {
                    report("'agent.base_url' must be an http or https URL", value)
                }
            case "tier":
                if let s = value.string, Self.tierNames.contains(s) {
                    defaultTier = s
                } else {
                    report("'agent.tier' must be fast, balanced or powerful", value)
                }
            case "tiers":
                // Either {fast: model, …} (for the configured provider) or {anthropic: {fast: …}, openai: {…}}.
                guard let entries = value.mapping else {
                    report("'agent.tiers' must map fast/balanced/powerful to model ids", value)
                    continue
                }
                for (k, v) in entries {
                    let name = k.string ?? ""
                    if Self.tierNames.contains(name), let model = v.string {
                        tiers["*", default: [:]][name] = model
                    } else if ["anthropic", "openai"].contains(name), let inner = v.mapping {
                        for (tk, tv) in inner {
                            if let tier = tk.string, Self.tierNames.contains(tier),
                                let model = tv.string
                            {
                                tiers[name, default: [:]][tier] = model
                            } else {
                                report(
                                    "'agent.tiers.\(name)' must map fast/balanced/powerful to model ids",
                                    tk)
                            }
                        }
                    } else {
                        report("unknown tier '\(name)' (use fast, balanced, powerful)", k)
                    }
                }
            case "prices":
                guard let entries = value.mapping else {
                    report(
                        "'agent.prices' must map model ids to {input, output} per million tokens",
                        value)
                    continue
                }
                for (k, v) in entries {
                    guard let model = k.string, let fields = v.mapping,
                        let input = fields["input"]?.float, let output = fields["output"]?.float,
                        input >= 0, output >= 0
                    else {
                        report(
                            "'agent.prices.\(k.string ?? "")' must be {input: dollars, output: dollars} per million tokens",
                            v)
                        continue
                    }
                    prices[model] = Price(input: input, output: output)
                }
            case "max_turns": positive(value, "max_turns") { maxTurns = $0 }
            case "max_tokens": positive(value, "max_tokens") { maxTokens = $0 }
            case "max_output_tokens": positive(value, "max_output_tokens") { maxOutputTokens = $0 }
            case "max_tool_result_bytes":
                positive(value, "max_tool_result_bytes") { maxToolResultBytes = $0 }
            case "retry_attempts": positive(value, "retry_attempts") { retryAttempts = $0 }
            case "retry_base_delay":
                if let d = value.float, d >= 0 {
                    retryBaseDelay = d
                } else {
                    report("'agent.retry_base_delay' must be a number of seconds", value)
                }
            case "idle_timeout":
                if let d = value.float, d > 0 {
                    idleTimeout = d
                } else {
                    report("'agent.idle_timeout' must be a number of seconds", value)
                }
            default:
                report("unknown setting 'agent.\(key)'", keyNode)
            }
        }

        func positive(_ node: Node, _ name: String, _ set: (Int) -> Void) {
            if let n = node.int, n > 0 {
                set(n)
            } else {
                report("'agent.\(name)' must be a positive integer", node)
            }
        }
    }

    /// The model id for `tier` with `provider` (the provider-neutral `tiers:` entries win).
    public func model(tier: String, provider: String) -> String? {
        tiers["*"]?[tier] ?? tiers[provider]?[tier]
    }
}
