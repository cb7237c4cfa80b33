import NotesCore
import NotesNetwork

/// Chooses the model provider, endpoint and model for a run from (in order) the command
/// line, the environment and `agent:` in config (docs/spec.md §9.1). Keys come from the
/// environment only (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`) and are never stored.
public struct ProviderSelection: Sendable {
    public var provider: any ModelProvider
    public var model: String

    /// - Parameters:
    ///   - name: `anthropic` or `openai` from `--provider` or a resumed session.
    ///   - model: `--model` or a resumed session's model; else the tier's model.
    public static func resolve(
        name: String?, model: String?, tier: String?, config: AgentConfig,
        environment: [String: String], client: HTTPClient
    ) throws(NotesError) -> ProviderSelection {
        func value(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        let chosen: String
        if let name = name ?? config.provider {
            chosen = name
        } else if value("ANTHROPIC_API_KEY") != nil {
            chosen = "anthropic"
        } else if value("OPENAI_API_KEY") != nil || value("OPENAI_BASE_URL") != nil {
            chosen = "openai"
        } else {
            throw NotesError(
                .invalidArgument, "no model provider is set up",
                hint:
                    "set ANTHROPIC_API_KEY, or OPENAI_BASE_URL (and OPENAI_API_KEY) for an OpenAI-compatible server such as Ollama"
            )
        }
        let tierName = tier ?? config.defaultTier
        guard AgentConfig.tierNames.contains(tierName) else {
            throw NotesError(
                .invalidArgument, "unknown tier '\(tierName)'",
                hint: "use fast, balanced or powerful")
        }
        guard let modelID = model ?? config.model(tier: tierName, provider: chosen) else {
            throw NotesError(
                .invalidArgument, "no model for tier \(tierName) with \(chosen)",
                hint: "set agent.tiers in .notes/config.yml or pass --model")
        }
        switch chosen {
        case "anthropic":
            guard let key = value("ANTHROPIC_API_KEY") else {
                throw NotesError(
                    .invalidArgument, "ANTHROPIC_API_KEY is not set",
                    hint: "export ANTHROPIC_API_KEY=… (it is read from the environment only)")
            }
            let provider = AnthropicProvider(
                apiKey: key, baseURL: value("ANTHROPIC_BASE_URL") ?? config.baseURL, client: client,
                idleTimeout: config.idleTimeout)
            return ProviderSelection(provider: provider, model: modelID)
        case "openai":
            let provider = OpenAIProvider(
                apiKey: value("OPENAI_API_KEY"),
                baseURL: value("OPENAI_BASE_URL") ?? config.baseURL, client: client,
                idleTimeout: config.idleTimeout)
            return ProviderSelection(provider: provider, model: modelID)
        default:
            throw NotesError(
                .invalidArgument, "unknown provider '\(chosen)'", hint: "use anthropic or openai")
        }
    }
}
