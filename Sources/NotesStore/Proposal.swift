import Foundation
import NotesCore

/// A change the agent proposed instead of writing (docs/spec.md §6.5): `on_conflict: "propose"`
/// or a path whose policy is `ask`. The person reviews it with `notes review`.
public struct Proposal: Codable, Sendable, Equatable {
    public var id: String
    public var path: String
    /// The operation that was proposed (write, append, edit).
    public var operation: ChangeOperation
    /// The version the proposal was made against (nil: the file did not exist).
    public var baseVersion: String?
    /// The whole proposed text of the file.
    public var content: String
    public var createdAt: String
    public var actor: Actor
    public var client: String
    /// Why it is a proposal rather than a write.
    public var reason: String

    enum CodingKeys: String, CodingKey {
        case id, path, operation, content, actor, client, reason
        case baseVersion = "base_version", createdAt = "created_at"
    }
}
