import Foundation
import NotesCore
import NotesDocuments

/// The person's own sections of a Markdown file (docs/spec.md §8.1): a heading whose line ends with
/// `<!-- user -->`, or whose text is listed in the front matter's `user_sections:`, and
/// everything under it down to the next heading of the same or a higher level. An agent may
/// read them and never change them, with any tool.
public struct UserSections: Sendable {
    /// One owned section: its heading text and its exact bytes (heading line included).
    public struct Section: Sendable, Equatable {
        public var heading: String
        public var text: [UInt8]
    }

    public let sections: [Section]

    /// The marker at the end of a heading line.
    public static let marker = "<!-- user -->"

    /// Finds the owned sections of `bytes` (a Markdown file at `path`).
    public init(_ bytes: [UInt8], path: String) {
        guard FileFormat(path: path) == .markdown, !bytes.isEmpty else {
            sections = []
            return
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let listed = Self.listedHeadings(bytes)
        guard listed.count > 0 || text.contains(Self.marker) else {
            sections = []
            return
        }
        let lines = ByteLines(bytes).lines
        let (document, _) = DocumentParser.parse(path: path, bytes: bytes)
        let headings = document?.headings ?? []
        var found: [Section] = []
        for (i, heading) in headings.enumerated()
        where heading.line >= 1 && heading.line <= lines.count {
            let raw = String(decoding: lines[heading.line - 1], as: UTF8.self).trimmingCharacters(
                in: .whitespacesAndNewlines)
            let title = Self.plain(heading.text)
            guard raw.hasSuffix(Self.marker) || listed.contains(title.lowercased()) else {
                continue
            }
            let end =
                headings[(i + 1)...].first { $0.level <= heading.level }.map { $0.line - 1 }
                ?? lines.count
            let body = lines[(heading.line - 1)..<max(heading.line, min(end, lines.count))].flatMap
            { Array($0) }
            found.append(Section(heading: title, text: body))
        }
        sections = found
    }

    /// Heading text without the marker, trimmed.
    static func plain(_ text: String) -> String {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix(marker) { t = String(t.dropLast(marker.count)) }
        return t.trimmingCharacters(in: .whitespaces)
    }

    /// `user_sections:` from the front matter, lowercased.
    static func listedHeadings(_ bytes: [UInt8]) -> Set<String> {
        guard case .present(let block) = FrontMatterBlock.split(bytes),
            let fm = try? FrontMatter.parse(bytes[block.yaml])
        else { return [] }
        return Set((fm["user_sections"]?.strings ?? []).map { plain($0).lowercased() })
    }

    /// Whether `heading` (a section name an agent asked for) is one of the person's.
    public func owns(_ heading: String) -> Bool {
        let wanted = Self.plain(heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces))
            .lowercased()
        return sections.contains { $0.heading.lowercased() == wanted }
    }

    /// Refuses an agent's change from `current` to `proposed` that would alter, move into
    /// or remove any of the person's sections of `current`.
    public static func check(current: [UInt8], proposed: [UInt8]?, path: String, operation: String)
        throws(NotesError)
    {
        let mine = UserSections(current, path: path)
        guard !mine.sections.isEmpty else { return }
        let after = proposed.map { UserSections($0, path: path) }?.sections ?? []
        for section in mine.sections where !after.contains(section) {
            throw NotesError(
                .policyDenied,
                "the section \"\(section.heading)\" of \(path) belongs to the person (\(marker) or user_sections); agents may read it but this \(operation) would change it, so nothing was written",
                hint:
                    "add to a section of your own instead, e.g. append_file or remember with section \"\(ContextFacts.defaultSection)\"",
                details: ErrorDetails(
                    path: path, options: ["append_file with a section of your own", "remember"]))
        }
    }
}
