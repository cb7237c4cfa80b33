import Foundation
import NotesCore
import NotesDocuments

/// What a section edit does with its text (issue 32, item 5).
public enum SectionMode: String, Codable, Sendable, CaseIterable {
    /// Replace the section's body (the lines under the heading, down to the next heading of
    /// the same or a higher level); the heading stays.
    case replace
    /// Add at the end of the section's body.
    case append
    /// Add at the start of the section's body, just under the heading.
    case prepend
    /// Add after the whole section (before the next heading of the same or a higher level),
    /// e.g. a new section.
    case insertAfter = "insert_after"
}
