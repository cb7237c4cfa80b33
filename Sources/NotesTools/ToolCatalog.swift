/// The agent's tools (SPEC §7): names, arguments and descriptions are a contract that
/// agents' prompts depend on; change them only with the spec.
public enum ToolCatalog {
    /// Every tool, reading tools first.
    public static let all: [ToolDefinition] = [
        readFile, listFiles, search, fileHistory, getContext,
        listTemplates,
        writeFile, appendFile, editFile, deleteFile, moveFile, restoreFile, remember, newFromTemplate, fetchURL,
    ]

    /// The tools `--read-only` keeps.
    public static var readOnly: [ToolDefinition] { all.filter(\.readOnly) }

    static let path = ToolParameter.string("path", "A path relative to the workspace root, e.g. \"Research/moby-dick/introduction.md\".", required: true)
    static let expectedVersion = ToolParameter.string(
        "expected_version", "The version you got from read_file (or list_files/search). The call fails with stale_version if the file changed since; read it again then.")
    static let confirmUserEdits = ToolParameter.boolean(
        "confirm_user_edits", "Set to true only after the person has said yes to replacing the text they wrote (a user_edited refusal shows it). Never set it on your own.")

    static let readFile = ToolDefinition(
        name: "read_file", title: "Read a file",
        description: """
            Read one file of the workspace: its text, its version (pass it as expected_version when you later change the file), \
            who created and last modified it (provenance: agent or user) and total_lines. For a long file pass offset (first line, \
            1-based) and limit (number of lines) to read it in pages. Use search to find which file to read, list_files to see what exists.
            """,
        parameters: [
            path,
            .integer("offset", "First line to return, 1-based (default 1).", minimum: 1),
            .integer("limit", "How many lines to return (default: all).", minimum: 0),
        ],
        readOnly: true, destructive: false, idempotent: true)

    static let listFiles = ToolDefinition(
        name: "list_files", title: "List files",
        description: """
            List files and folders by name: each file with kind (note, research, journal, chat, context), size, title, modified time, \
            version and provenance. Lists one folder (default: the workspace root); recursive lists everything below it; glob filters \
            paths (e.g. \"**/*.md\", \"Journal/2026-*\"). This looks at names only: to find files by what they say, use search.
            """,
        parameters: [
            .string("path", "The folder to list, relative to the workspace root (default: the root)."),
            .boolean("recursive", "Include every folder below (default false)."),
            .string("glob", "Only paths matching this glob: * stays within a folder, ** crosses folders."),
        ],
        readOnly: true, destructive: false, idempotent: true)

    static let search = ToolDefinition(
        name: "search", title: "Search the workspace",
        description: """
            Full-text search of the content of every note, ranked by relevance, with snippets and line numbers. Query language: words \
            are ANDed; \"exact phrase\"; a OR b; -word excludes; prefix*; title:word. Filters: path (a folder or glob), tags, by \
            (who created the file: agent or user), kind. Always up to date with the files on disk. Use this to find notes about \
            something; use list_files to browse by name and read_file to see a whole file.
            """,
        parameters: [
            .string("query", "What to look for, e.g. whale, \"white whale\", harpoon*, whale -ship.", required: true),
            .string("path", "Only files under this folder, or matching this glob if it contains * or ?."),
            .strings("tags", "Only files with all of these tags (front matter tags or #hashtags)."),
            .string("by", "Only files created by this actor.", choices: ["agent", "user"]),
            .string("kind", "Only documents of this kind.", choices: ["note", "research", "journal", "chat", "context"]),
            .integer("limit", "Most files to return (default 10).", minimum: 1, maximum: 100),
        ],
        readOnly: true, destructive: false, idempotent: true)

    static let fileHistory = ToolDefinition(
        name: "file_history", title: "A file's history",
        description: """
            The versions a file has had, newest first: each with the operation (create, write, append, edit, delete, move, restore, \
            external = edited outside notes), who did it (agent or user), the client and the time. Pass a version to restore_file \
            to bring it back. Deleted files keep their history.
            """,
        parameters: [path],
        readOnly: true, destructive: false, idempotent: true)

    static let getContext = ToolDefinition(
        name: "get_context", title: "Session context",
        description: """
            Call this first in a session. Returns context.md (what you learned about the person in earlier sessions), an overview of \
            the workspace (folders with file counts), what the person changed since your last session, pending proposals waiting \
            for their review, and the state of the search index.
            """,
        parameters: [],
        readOnly: true, destructive: false, idempotent: true)

    static let writeFile = ToolDefinition(
        name: "write_file", title: "Write a file",
        description: """
            Create a new file, or replace the whole text of an existing one. Replacing needs expected_version (from read_file): \
            without it the call fails with read_required, and if the file changed since your read, with stale_version. If the \
            person edited the file since you last wrote it, replacing their text fails with user_edited and shows what would be \
            lost; then prefer edit_file on other lines, or on_conflict "merge" (keeps their changes and yours when they do not \
            overlap), or "propose" (stored for the person to review). Provenance front matter is stamped for you. To add to a \
            file use append_file; to change a few lines use edit_file.
            """,
        parameters: [
            path,
            .string("content", "The complete new text of the file (Markdown with optional YAML front matter).", required: true),
            expectedVersion,
            .string("on_conflict", "What to do when the person edited the file: fail (default), merge, or propose.", choices: ["fail", "merge", "propose"]),
            confirmUserEdits,
        ],
        readOnly: false, destructive: true, idempotent: true)

    static let appendFile = ToolDefinition(
        name: "append_file", title: "Append to a file",
        description: """
            Add text at the end of a file, or at the end of the section under a heading (section, e.g. \"Sources\"; created when \
            missing). Creates the file when it does not exist. Never conflicts and never changes existing text, so it is the way \
            to add to the journal (Journal/YYYY-MM-DD.md) and to files the person is working on. No version needed.
            """,
        parameters: [
            path,
            .string("content", "The text to add (a paragraph, a list item, a block).", required: true),
            .string("section", "Append at the end of the section with this heading text (without the #s)."),
        ],
        readOnly: false, destructive: false, idempotent: false)

    static let editFile = ToolDefinition(
        name: "edit_file", title: "Edit part of a file",
        description: """
            Replace exact text in a file: each edit's old_text must appear exactly once (include a few surrounding words to make it \
            unique) and is replaced by new_text. Needs expected_version from read_file. If the file changed since, the edit still \
            applies when the changed lines are not the ones you edit. Changing lines the person wrote fails with user_edited unless \
            they agreed (confirm_user_edits). dry_run shows the diff without writing. Returns the new version and the diff.
            """,
        parameters: [
            path,
            expectedVersion,
            .boolean("dry_run", "Only show the diff; change nothing."),
            confirmUserEdits,
        ],
        readOnly: false, destructive: true, idempotent: false,
        extraSchema: [
            "edits": .object([
                "type": .string("array"), "minItems": .int(1),
                "description": .string("The replacements, applied in order."),
                "items": .object([
                    "type": .string("object"), "additionalProperties": .bool(false),
                    "required": .array([.string("old_text"), .string("new_text")]),
                    "properties": .object([
                        "old_text": .object(["type": .string("string"), "description": .string("Exact text now in the file, found exactly once.")]),
                        "new_text": .object(["type": .string("string"), "description": .string("The text to put in its place (\"\" deletes it).")]),
                    ]),
                ]),
            ])
        ],
        extraRequired: ["edits", "expected_version"])

    static let deleteFile = ToolDefinition(
        name: "delete_file", title: "Delete a file",
        description: """
            Delete a file (it stays in history: restore_file brings it back). Needs expected_version from read_file. A file the \
            person edited since you last wrote it is refused with user_edited unless they agreed (confirm_user_edits).
            """,
        parameters: [path, expectedVersion, confirmUserEdits],
        readOnly: false, destructive: true, idempotent: false,
        extraRequired: ["expected_version"])

    static let moveFile = ToolDefinition(
        name: "move_file", title: "Move or rename a file",
        description: """
            Move or rename a file within the workspace. Needs expected_version from read_file. Fails if the target exists.
            """,
        parameters: [
            .string("from", "The file's current path.", required: true),
            .string("to", "The new path (folders are created as needed).", required: true),
            .string("expected_version", "The version you got from read_file.", required: true),
        ],
        readOnly: false, destructive: true, idempotent: false)

    static let restoreFile = ToolDefinition(
        name: "restore_file", title: "Restore a version",
        description: """
            Bring back an earlier version of a file (from file_history), or a deleted file. The restore is itself a change, so it \
            can be undone the same way. Pass expected_version when the file exists, as for write_file.
            """,
        parameters: [
            path,
            .string("version", "The version to bring back (from file_history).", required: true),
            expectedVersion,
        ],
        readOnly: false, destructive: true, idempotent: true)

    static let remember = ToolDefinition(
        name: "remember", title: "Remember a fact",
        description: """
            Record something you learned about the person or their work in context.md, as a dated bullet under a section (default \
            \"Learned\"), so the next session knows it. A fact already recorded (same words, ignoring case and punctuation) is not \
            added again (the answer says duplicate: true). Keep facts short and specific.
            """,
        parameters: [
            .string("fact", "The fact, one sentence, e.g. \"Prefers British spelling\".", required: true),
            .string("section", "The heading to file it under (default \"Learned\"), e.g. \"Preferences\"."),
        ],
        readOnly: false, destructive: false, idempotent: true)

    static let fetchURL = ToolDefinition(
        name: "fetch_url", title: "Fetch a web page into the workspace",
        description: """
            Download a web page or text (http or https) into a workspace file, e.g. a Project Gutenberg book into \
            Research/moby-dick/full_text.txt, so that you and the person can search and read it. Follows redirects; text only; \
            up to the workspace's write limit. Fetching the same URL again downloads only if the page changed (cached: true \
            means nothing was written). Markdown targets get source_url and fetched_at in their front matter. Without path the \
            file goes to Fetched/<host>/<name>. Replacing an existing file follows the same rules as write_file. Answers \
            offline when the network or the server is unavailable (nothing is written).
            """,
        parameters: [
            .string("url", "The page's address, e.g. \"https://www.gutenberg.org/cache/epub/2701/pg2701.txt\".", required: true),
            .string("path", "Where to save it, e.g. \"Research/moby-dick/full_text.txt\" (default Fetched/<host>/<name>)."),
        ],
        readOnly: false, destructive: false, idempotent: true)

    static let listTemplates = ToolDefinition(
        name: "list_templates", title: "List templates",
        description: """
            The templates new_from_template can use (research topic folder, introduction, source, journal page, context, and \
            the workspace's own): each with its description, where it creates files, and its variables (required or optional). \
            Every template also gets title, slug, date, datetime and actor.
            """,
        parameters: [],
        readOnly: true, destructive: false, idempotent: true)

    static let newFromTemplate = ToolDefinition(
        name: "new_from_template", title: "Create from a template",
        description: """
            Create a new note or a research topic folder from a template (see list_templates), e.g. template "research" with \
            variables {"title": "Moby Dick"} creates Research/moby-dick/introduction.md, notes.md and sources/. Never replaces \
            an existing file (that is an error: pick another title or path). path overrides where it goes: a folder ending in / \
            or an exact path. Returns the created files with their versions.
            """,
        parameters: [
            .string("template", "The template's name, e.g. \"research\", \"introduction\", \"source\".", required: true),
            .string("path", "Where to create it instead of the template's default: a folder ending in /, or an exact path."),
        ],
        readOnly: false, destructive: false, idempotent: false,
        extraSchema: [
            "variables": .object([
                "type": .string("object"),
                "description": .string("The template's variables; title is required, e.g. {\"title\": \"Moby Dick\", \"question\": \"Why white?\"}."),
                "required": .array([.string("title")]),
                "additionalProperties": .object(["type": .string("string")]),
            ])
        ],
        extraRequired: ["variables"])
}
