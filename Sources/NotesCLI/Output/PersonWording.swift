import Foundation
import NotesCore

/// The library's messages serve the MCP tools and the command line alike, and some name a
/// tool (`list_files`, `append_file`, `old_text`…). On the command line a message names
/// what the person types instead (issue 31 item 10): every error and warning the CLI
/// prints passes through ``forPerson(_:)``.
enum PersonWording {
    /// Tool words and their command-line counterparts, longest first (so "list_files or
    /// `notes list`" becomes "`notes list`", not "`notes list` or `notes list`").
    static let replacements: [(tool: String, cli: String)] = [
        ("list_files or `notes list`", "`notes list`"),
        ("list_files", "`notes list`"), ("read_files", "`notes read`"),
        ("read_file", "`notes read`"),
        ("write_file", "`notes write`"), ("append_file with section", "`notes append --section`"),
        ("append_file", "`notes append`"), ("edit_file", "`notes edit`"),
        ("delete_file", "`notes rm`"),
        ("move_file", "`notes mv`"), ("restore_file", "`notes restore`"),
        ("file_history", "`notes history`"),
        ("list_templates", "`notes templates`"), ("new_from_template", "`notes new`"),
        ("fetch_url", "`notes fetch`"),
        ("get_context", "`notes context`"), ("list_proposals", "`notes review`"),
        ("old_text", "--old"), ("new_text", "--new"), ("expected_version", "--expected-version"),
    ]

    static func forPerson(_ text: String) -> String {
        var out = text
        for (tool, cli) in replacements where out.contains(tool) {
            out = out.replacingOccurrences(of: tool, with: cli)
        }
        return out
    }

    static func forPerson(_ error: NotesError) -> NotesError {
        var shown = error
        shown.message = forPerson(error.message)
        shown.hint = error.hint.map { forPerson($0) }
        if var details = error.details, let options = details.options {
            details.options = options.map { forPerson($0) }
            shown.details = details
        }
        return shown
    }
}
