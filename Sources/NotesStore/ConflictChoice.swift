import Foundation
import NotesCore

/// What an agent does when its change would lose the person's edits (docs/spec.md §6.2).
public enum ConflictChoice: String, Sendable, Codable, CaseIterable {
    case fail, merge, propose
}
