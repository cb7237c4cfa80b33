import Foundation
import NotesCore

/// Who is making a change: the actor recorded in provenance and history, and the client's
/// name (`cli`, the MCP client's name, `notes-agent`).
public struct Author: Sendable, Equatable {
    public var actor: Actor
    public var client: String

    public init(_ actor: Actor, client: String) {
        self.actor = actor
        self.client = client
    }

    /// The person at the command line.
    public static let person = Author(.user, client: "cli")
}
