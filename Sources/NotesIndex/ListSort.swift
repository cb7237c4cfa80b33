import Foundation
import GRDB
import NotesCore

/// Listing order (`notes list --sort`).
public enum ListSort: String, Sendable, CaseIterable {
    case path, modified, created, title, size
}
