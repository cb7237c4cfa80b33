import Foundation
import NotesCore

/// What `notes journal` did.
public struct JournalResult: Codable, Sendable, Equatable {
    public var path: String
    public var version: String?
    /// The heading of the entry (`## 14:05 — user`).
    public var entry: String
    public var created: Bool
}

extension NoteStore {
    /// The journal page of a day: `Journal/YYYY-MM-DD.md` (local date).
    public static func journalPath(_ now: Double) -> String {
        "Journal/\(Timestamp.localDate(now)).md"
    }

    /// The date of a journal page's path (`Journal/2026-11-21.md` → `2026-11-21`), else nil.
    public static func journalDate(of path: String) -> String? {
        guard path.hasPrefix("Journal/"), path.hasSuffix(".md") else { return nil }
        let date = String(path.dropFirst(8).dropLast(3))
        return date.count == 10 && Timestamp.parse(date) != nil ? date : nil
    }

    /// Appends a timestamped entry tagged with its actor to the journal page of `day` (default
    /// today; docs/spec.md §8.2), creating the page from `header` (the journal template)
    /// when missing. An append under the workspace lock: entries from the person and agents
    /// never overwrite each other.
    public func journal(
        _ text: String, header: String? = nil, day: String? = nil, by author: Author,
        now: Double = Timestamp.now()
    ) throws(NotesError) -> JournalResult {
        let body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !body.isEmpty else {
            throw NotesError(
                .invalidArgument, "the journal entry is empty",
                hint: "write some text, e.g. notes journal \"read chapter 42\"")
        }
        let (today, time) = Timestamp.localDateTime(now)
        let date = day ?? today
        let heading = "## \(time) — \(author.actor.rawValue)"
        let (path, rule) = try resolve("Journal/\(date).md", for: author, .append)
        let entry = heading + "\n\n" + body + "\n"
        let change = try lockedRereading { () throws(NotesError) -> ChangeResult in
            // Decided under the lock, so two writers starting the same day add one header.
            let target = try open(path, create: true)
            let start = target.bytes ?? Array((header ?? "# \(date)\n").utf8)
            let bytes = try TextChange.append(
                entry, to: start, section: nil, markdown: true, path: path.relative)
            return try commitAppend(
                target, bytes: bytes, rule: rule, author: author, what: "journal")
        }
        return JournalResult(
            path: path.relative, version: change.version, entry: heading, created: change.created)
    }
}
