import NotesStore

/// The agent's tools (docs/spec.md §7): names, arguments and descriptions are a contract that
/// agents' prompts depend on; change them only with the spec.
public enum ToolCatalog {
    /// Every tool, reading tools first.
    public static let all: [ToolDefinition] = [
        readFile, readFiles, listFiles, search, related, fileHistory, getContext,
        listTemplates,
        writeFile, appendFile, editFile, deleteFile, moveFile, restoreFile, remember,
        newFromTemplate, fetchURL,
        listProposals, withdrawProposal,
    ]

    /// The tools `--read-only` keeps.
    public static var readOnly: [ToolDefinition] { all.filter(\.readOnly) }

    // Shared parameters are described once (in read_file and write_file), so tools/list
    // stays small (issue 32, item 10): elsewhere the name and type say what they are.
    static let path = ToolParameter.string("path", nil, required: true)
    static let expectedVersion = ToolParameter.string("expected_version", nil)
    static let confirmUserEdits = ToolParameter.boolean("confirm_user_edits", nil)
    static let onConflict = ToolParameter.string(
        "on_conflict", nil, choices: ["fail", "merge", "propose"])

    static let readFile = ToolDefinition(
        name: "read_file", title: "Read a file",
        description: """
            A file's text, version (pass it as expected_version to change the file), by (who last changed it: agent or user; \
            created_by if another) and total_lines. Long files come in windows of 2,000 lines or 64 KB: truncated means more \
            follows; pass next_offset as offset (and next_column as column: a line longer than the window, line_cut, \
            comes in pieces).
            """,
        parameters: [
            .string(
                "path",
                "From the workspace root, e.g. \"Research/moby-dick/notes.md\".",
                required: true),
            .integer("offset", "First line, 1-based (default 1).", minimum: 1),
            .integer("column", "UTF-8 bytes into that line (a next_column).", minimum: 0),
            .integer("limit", "Lines to return (default: the window).", minimum: 0),
        ],
        readOnly: true, destructive: false, idempotent: true)

    static let readFiles = ToolDefinition(
        name: "read_files", title: "Read several files",
        description: """
            Up to 20 files in one call, each answered as read_file would (or with its error), 256 KB in all.
            """,
        parameters: [],
        readOnly: true, destructive: false, idempotent: true,
        extraSchema: [
            "paths": .object([
                "type": .string("array"), "items": .object(["type": .string("string")]),
                "minItems": .int(1), "maxItems": .int(20),
            ])
        ],
        extraRequired: ["paths"])

    static let listFiles = ToolDefinition(
        name: "list_files", title: "List files",
        description: """
            Files and folders by name (search looks inside files), 200 a page: pass next_cursor as cursor for the next. A file \
            has kind, size, title, modified, version, by. depth N: N folders down (recursive: all); tree: folders only, with \
            file counts; glob filters paths (\"**/*.md\").
            """,
        parameters: [
            .string("path", "A folder (default: the root)."),
            .integer("depth", nil, minimum: 1, maximum: 64),
            .boolean("recursive", nil),
            .boolean("tree", nil),
            .string("glob", "* stays within a folder, ** crosses folders."),
            .string("cursor", nil),
            .integer("limit", nil, minimum: 1, maximum: 1000),
        ],
        readOnly: true, destructive: false, idempotent: true)

    static let search = ToolDefinition(
        name: "search", title: "Search the workspace",
        description: """
            Search inside files by words and meaning (names: list_files); a question works: files with most words rank first \
            (missing: words lacked; matched_by: meaning or words when not both). A hit's text is its best line as written (edit_file's \
            old_text). "phrase", AND, OR, -word, prefix*, title:word are exact.
            """,
        parameters: [
            .string("query", nil, required: true),
            .string("path", "A folder or glob."),
            .strings("tags", "All of these."),
            .string("by", "Who created the file.", choices: ["agent", "user"]),
            .string("kind", nil, choices: ["note", "research", "journal", "chat", "context"]),
            .integer("limit", "Default 10.", minimum: 1, maximum: 100),
            .string(
                "mode", "Default hybrid once embedded.", choices: ["lexical", "semantic", "hybrid"]),
            .boolean("detail", nil),
        ],
        readOnly: true, destructive: false, idempotent: true)

    static let related = ToolDefinition(
        name: "related", title: "Notes related to a note",
        description: """
            Notes nearest a note in meaning (similarity 0–1): links to add, or notes to read first.
            """,
        parameters: [path, .integer("limit", nil, minimum: 1, maximum: 50)],
        readOnly: true, destructive: false, idempotent: true)

    static let fileHistory = ToolDefinition(
        name: "file_history", title: "A file's history",
        description: """
            A file's versions, newest first: operation (external: edited outside notes), actor, client, time. restore_file \
            brings one back; a deleted file keeps its history.
            """,
        parameters: [path],
        readOnly: true, destructive: false, idempotent: true)

    static let getContext = ToolDefinition(
        name: "get_context", title: "Session context",
        description: """
            Call this first: context.md (what you learned about the person), the folders, what the person changed since your \
            last session, proposals awaiting their review, the index's state.
            """,
        parameters: [],
        readOnly: true, destructive: false, idempotent: true)

    static let writeFile = ToolDefinition(
        name: "write_file", title: "Write a file",
        description: """
            Create a file or replace a whole one (needs expected_version; changed since: stale_version). Replacing lines the \
            person wrote since your last write: user_edited, showing them; then edit other lines, or on_conflict "merge" (keeps \
            both where they do not overlap) or "propose" (for the person's review; also on append-only paths). Provenance is \
            stamped for you.
            """,
        parameters: [
            path,
            .string(
                "content", "The whole new text (Markdown, optional YAML front matter).",
                required: true),
            .string("expected_version", "The version read_file gave you."),
            .string("on_conflict", "Default fail.", choices: ["fail", "merge", "propose"]),
            .boolean(
                "confirm_user_edits",
                "true only after the person said yes to replacing their text. Never on your own."),
        ],
        readOnly: false, destructive: true, idempotent: true)

    static let appendFile = ToolDefinition(
        name: "append_file", title: "Append to a file",
        description: """
            Add text at the end of a file, or of a section (its heading without #s; made if missing); creates the file if \
            needed. Needs no version, never conflicts: the way to add to the journal (Journal/YYYY-MM-DD.md: plain text becomes \
            a timed entry), context.md and files the person is working on.
            """,
        parameters: [
            path,
            .string("content", nil, required: true),
            .string("section", nil),
        ],
        readOnly: false, destructive: false, idempotent: false)

    static let editFile = ToolDefinition(
        name: "edit_file", title: "Edit part of a file",
        description: """
            Change part of a file. Each edit is {old_text, new_text} (old_text must occur exactly once) or {section, mode, \
            new_text}: section a heading's text, mode replace (its body), append or prepend (inside it), insert_after (after \
            it). Needs expected_version; a file changed since still takes edits away from the changes. The person's lines: \
            user_edited unless on_conflict or confirm_user_edits. dry_run: the diff only.
            """,
        parameters: [
            path,
            expectedVersion,
            onConflict,
            .boolean("dry_run", nil),
            confirmUserEdits,
        ],
        readOnly: false, destructive: true, idempotent: false,
        extraSchema: [
            "edits": .object([
                "type": .string("array"), "minItems": .int(1),
                "items": .object([
                    "type": .string("object"), "additionalProperties": .bool(false),
                    "properties": .object([
                        "old_text": .object(["type": .string("string")]),
                        "new_text": .object(["type": .string("string")]),
                        "section": .object(["type": .string("string")]),
                        "mode": .object([
                            "type": .string("string"),
                            "enum": .array(SectionMode.allCases.map { .string($0.rawValue) }),
                        ]),
                    ]),
                ]),
            ])
        ],
        extraRequired: ["edits", "expected_version"])

    static let deleteFile = ToolDefinition(
        name: "delete_file", title: "Delete a file",
        description: """
            Delete a file (restore_file brings it back). Needs expected_version. A file the person edited since your last \
            write: user_edited unless they agreed (confirm_user_edits).
            """,
        parameters: [path, expectedVersion, confirmUserEdits],
        readOnly: false, destructive: true, idempotent: false,
        extraRequired: ["expected_version"])

    static let moveFile = ToolDefinition(
        name: "move_file", title: "Move or rename a file",
        description: """
            Move or rename a file (folders are created). Needs expected_version. Fails if the target exists.
            """,
        parameters: [
            .string("from", nil, required: true),
            .string("to", nil, required: true),
            .string("expected_version", nil, required: true),
        ],
        readOnly: false, destructive: true, idempotent: false)

    static let restoreFile = ToolDefinition(
        name: "restore_file", title: "Restore a version",
        description: """
            Bring back a version from file_history, or a deleted file; a restore is a change too. Pass expected_version when \
            the file exists.
            """,
        parameters: [
            path,
            .string("version", nil, required: true),
            expectedVersion,
        ],
        readOnly: false, destructive: true, idempotent: true)

    static let remember = ToolDefinition(
        name: "remember", title: "Remember a fact",
        description: """
            Record what you learned about the person in context.md (a dated bullet under section, default "Learned") for later \
            sessions; a fact already there, even reworded: duplicate true. Short and specific: "Prefers British spelling".
            """,
        parameters: [
            .string("fact", nil, required: true),
            .string("section", nil),
        ],
        readOnly: false, destructive: false, idempotent: true)

    static let fetchURL = ToolDefinition(
        name: "fetch_url", title: "Fetch a web page into the workspace",
        description: """
            Download a web page or text (http/https) into a file, e.g. a Gutenberg book into Research/moby-dick/full_text.txt \
            (default Fetched/<host>/<name>). An unchanged page is not fetched again (cached true). Replacing a file follows \
            write_file's rules. offline: nothing written.
            """,
        parameters: [
            .string("url", nil, required: true),
            .string("path", nil),
        ],
        readOnly: false, destructive: true, idempotent: true, openWorld: true)

    static let listProposals = ToolDefinition(
        name: "list_proposals", title: "Your pending proposals",
        description: """
            Your proposals waiting for the person's review: id, path, operation, time, reason.
            """,
        parameters: [],
        readOnly: true, destructive: false, idempotent: true)

    static let withdrawProposal = ToolDefinition(
        name: "withdraw_proposal", title: "Withdraw a proposal",
        description: """
            Take back one of your pending proposals (id from list_proposals); the file is not touched.
            """,
        parameters: [.string("id", nil, required: true)],
        readOnly: false, destructive: false, idempotent: false)

    static let listTemplates = ToolDefinition(
        name: "list_templates", title: "List templates",
        description: """
            Templates for new_from_template: description, target and variables (title, slug, date, datetime, actor are given \
            too).
            """,
        parameters: [],
        readOnly: true, destructive: false, idempotent: true)

    static let newFromTemplate = ToolDefinition(
        name: "new_from_template", title: "Create from a template",
        description: """
            Create a note or a research folder from a template: "research" with variables {"title": "Moby Dick"} creates \
            Research/moby-dick/introduction.md, notes.md and sources/. Never replaces a file. path: a folder ending in / or a \
            file, instead of the default.
            """,
        parameters: [
            .string("template", nil, required: true),
            .string("path", nil),
        ],
        readOnly: false, destructive: false, idempotent: false,
        extraSchema: [
            "variables": .object([
                "type": .string("object"),
                "required": .array([.string("title")]),
                "additionalProperties": .object(["type": .string("string")]),
            ])
        ],
        extraRequired: ["variables"])
}
