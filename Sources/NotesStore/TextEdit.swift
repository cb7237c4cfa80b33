import Foundation
import NotesCore
import NotesDocuments

/// One change of `edit_file` / `notes edit`: an exact replacement (`oldText` must occur
/// exactly once), or, with `section`, a change inside or after the section under that
/// heading (`mode`), with `newText` as the text.
public struct TextEdit: Codable, Sendable, Equatable {
    public var oldText: String
    public var newText: String
    /// The heading's text (without #s), for a section edit.
    public var section: String?
    public var mode: SectionMode?

    public init(oldText: String, newText: String) {
        self.oldText = oldText
        self.newText = newText
    }

    public init(section: String, mode: SectionMode, text: String) {
        self.oldText = ""
        self.newText = text
        self.section = section
        self.mode = mode
    }

    enum CodingKeys: String, CodingKey {
        case oldText = "old_text", newText = "new_text", section, mode
    }
}
