import Foundation

/// What the agent may do at a path (docs/spec.md §10, config `policy:`).
public enum AccessRule: String, Sendable, Codable, CaseIterable {
    /// Read and change (the default).
    case write
    /// Read and append only.
    case append
    /// Read; changes become proposals for the person to review.
    case ask
    /// Read only.
    case read
    /// Invisible: not read, listed or searched.
    case deny
}
