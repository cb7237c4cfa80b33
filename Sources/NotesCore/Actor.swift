/// Who did something to a file: the person or the agent (docs/spec.md §3.1).
public enum Actor: String, Sendable, Codable, CaseIterable {
    case agent, user
}
