import Foundation
import NotesCore
import NotesStore

/// How reads, changes and `remember` answer an agent (issue 32, item 10): each fact once.
/// What the agent passed is not echoed back (the path it named, the version it expected), a
/// field at its usual value is left out (`created`, `merged` and `dry_run` only when true,
/// `changed` only when false, `warnings` only when there are some), and provenance is
/// compact as in `search` and `list_files`: `by` (who last changed the file) and
/// `created_by` only when someone else made it. The CLI's `--json` keeps the full records.

/// `read_file`'s answer (and each of `read_files`'). The content and its version always;
/// `total_lines` always, so an agent knows a file's length; the window's place (`offset`,
/// `lines`, `size`, `truncated`, `next_offset`) only when the answer is not the whole file,
/// with `next` saying how to read on or find the part wanted when there is more.
struct ReadAnswer: Encodable {
    let result: ReadResult
    /// Said only where several files share one answer (read_files) or the path read is not
    /// the one asked for (an NFD name read by its NFC form).
    let path: String?

    /// Whether search looks inside the file, so `next` can offer it.
    let searchable: Bool

    init(_ result: ReadResult, asked: String?, searchable: Bool) {
        self.result = result
        self.path = asked == result.path ? nil : result.path
        self.searchable = searchable
    }

    enum CodingKeys: String, CodingKey {
        case path, content, version, by, offset, lines, size, truncated
        case createdBy = "created_by", totalLines = "total_lines", nextOffset = "next_offset"
        case lineCut = "line_cut", invalidUTF8Line = "invalid_utf8_line", column
        case nextColumn = "next_column", encoding, next
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let r = result
        try c.encodeIfPresent(path, forKey: .path)
        try c.encode(r.content, forKey: .content)
        try c.encode(r.version, forKey: .version)
        let by = r.provenance.lastModifiedBy ?? .user
        let created = r.provenance.createdBy ?? .user
        try c.encode(by.rawValue, forKey: .by)
        if created != by { try c.encode(created.rawValue, forKey: .createdBy) }
        try c.encode(r.totalLines, forKey: .totalLines)
        let whole =
            r.offset == 1 && r.column == nil && r.lines == r.totalLines && r.truncated != true
        if !whole {
            try c.encode(r.offset, forKey: .offset)
            try c.encodeIfPresent(r.column, forKey: .column)
            try c.encode(r.lines, forKey: .lines)
            try c.encode(r.size, forKey: .size)
        }
        if r.truncated == true { try c.encode(true, forKey: .truncated) }
        try c.encodeIfPresent(r.nextOffset, forKey: .nextOffset)
        try c.encodeIfPresent(r.nextColumn, forKey: .nextColumn)
        if let next = r.nextOffset {
            let column = r.nextColumn.map { " and column \($0)" } ?? ""
            let search =
                searchable
                ? ", or search with a query and path \"\(r.path)\" finds the part you need" : ""
            try c.encode(
                "read_file with offset \(next)\(column) reads on (\(r.totalLines) lines in all)\(search)",
                forKey: .next)
        }
        try c.encodeIfPresent(r.lineCut, forKey: .lineCut)
        try c.encodeIfPresent(r.invalidUTF8Line, forKey: .invalidUTF8Line)
        if let line = r.invalidUTF8Line {
            try c.encode(
                "not UTF-8 (Latin-1 or another legacy encoding) from line \(line): those bytes are shown as U+FFFD, as search sees them; the file can be read, not changed: ask the person to convert it to UTF-8 (iconv -f latin1 -t utf-8)",
                forKey: .encoding)
        }
    }
}

/// The answer to a change (write_file, append_file, edit_file, delete_file, move_file,
/// restore_file): the new version always; `path` only when it is not the one passed;
/// `previous_version` only when it is not the `expected_version` passed (the file had
/// changed, or no version was passed); an edit's diff without its `---`/`+++` lines (the
/// path and the version it was made from).
struct ChangeAnswer: Encodable {
    let result: ChangeResult
    let askedPath: String?
    let expectedVersion: String?

    enum CodingKeys: String, CodingKey {
        case path, from, version, created, merged, changed, proposal, diff, warnings, entry
        case previousVersion = "previous_version", restorableVersion = "restorable_version"
        case dryRun = "dry_run"
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let r = result
        if r.path != askedPath { try c.encode(r.path, forKey: .path) }
        try c.encodeIfPresent(r.from, forKey: .from)
        try c.encodeIfPresent(r.version, forKey: .version)
        if r.previousVersion != expectedVersion {
            try c.encodeIfPresent(r.previousVersion, forKey: .previousVersion)
        }
        if r.created { try c.encode(true, forKey: .created) }
        if r.merged { try c.encode(true, forKey: .merged) }
        if !r.changed { try c.encode(false, forKey: .changed) }
        if r.dryRun { try c.encode(true, forKey: .dryRun) }
        try c.encodeIfPresent(r.proposal, forKey: .proposal)
        try c.encodeIfPresent(r.restorableVersion, forKey: .restorableVersion)
        try c.encodeIfPresent(r.entry, forKey: .entry)
        try c.encodeIfPresent(r.diff.map(Self.hunks), forKey: .diff)
        if !r.warnings.isEmpty { try c.encode(r.warnings, forKey: .warnings) }
    }

    /// A unified diff from its first hunk on (the `---`/`+++` lines name the path and the
    /// version the agent already has).
    static func hunks(_ diff: String) -> String {
        guard diff.hasPrefix("--- "), let start = diff.range(of: "\n@@") else { return diff }
        return String(diff[diff.index(after: start.lowerBound)...])
    }
}

/// `remember`'s answer without the path (it is always context.md).
struct RememberAnswer: Encodable {
    let result: RememberResult

    enum CodingKeys: String, CodingKey {
        case version, section, duplicate, matching, added, contradicts, similar, proposal, next
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(result.version, forKey: .version)
        try c.encode(result.section, forKey: .section)
        try c.encode(result.duplicate, forKey: .duplicate)
        try c.encodeIfPresent(result.matching, forKey: .matching)
        try c.encodeIfPresent(result.added, forKey: .added)
        try c.encodeIfPresent(result.contradicts, forKey: .contradicts)
        try c.encodeIfPresent(result.similar, forKey: .similar)
        try c.encodeIfPresent(result.proposal, forKey: .proposal)
        if result.contradicts != nil || result.similar != nil {
            try c.encode(
                "if the new fact replaces that line, propose removing it: edit_file on context.md with its old_text and on_conflict \"propose\" (context.md is append-only for agents; the person reviews the proposal)",
                forKey: .next)
        }
    }
}
