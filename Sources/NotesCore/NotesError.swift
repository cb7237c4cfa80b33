import Foundation

/// A failure that a person or an agent must act on, with a stable code.
///
/// The codes are the contract of docs/spec.md §7 (agents branch on them) and §12 (the CLI prints
/// `notes: <message> (<hint>)` and exits 2). Recoverable per-file problems are not errors:
/// they are ``Diagnostic`` values collected while indexing.
public struct NotesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable machine-readable error codes (docs/spec.md §7).
    public enum Code: String, Sendable, Codable, CaseIterable {
        case notFound = "not_found"
        case readRequired = "read_required"
        case staleVersion = "stale_version"
        case userEdited = "user_edited"
        case mergeConflict = "merge_conflict"
        case policyDenied = "policy_denied"
        case outsideWorkspace = "outside_workspace"
        case protectedPath = "protected_path"
        case invalidArgument = "invalid_argument"
        case tooLarge = "too_large"
        case notText = "not_text"
        case offline = "offline"
        /// The disk or the system refused: full, read-only, permissions, a path of the wrong
        /// kind (a file where a folder should be, or the reverse), a system limit. The
        /// message says which and the hint what to do; nothing was changed.
        case ioError = "io_error"
        /// Another process holds what this call needs (the workspace lock, the search index
        /// being built or written) past the bounded wait: retry once it is done. The message
        /// names the holder.
        case busy = "busy"
        case `internal` = "internal"
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, in one sentence.
    public var message: String
    /// What to do about it, in a few words (shown in parentheses by the CLI).
    public var hint: String?
    /// Why it failed, for the library's own decisions (never shown or encoded): lets code act
    /// on a failure's kind without reading its message.
    public var cause: Cause?

    /// Failure kinds the library itself reacts to.
    public enum Cause: Sendable, Equatable {
        /// The search index database is damaged (SQLITE_CORRUPT, SQLITE_NOTADB): rebuild it.
        case indexDamaged
        /// The write failed before anything became visible: the files are as they were.
        case leftUnchanged
        /// The change became visible (the file has its new bytes); a later step failed.
        case changeMade
        /// The search index's folder cannot be used (full, read-only, not a folder, not
        /// ours): commands that need no index go on without it.
        case indexUnusable
        /// A file search holds has no passage vectors yet: the next embedding pass makes them.
        case notEmbeddedYet
    }
    /// What an agent needs to act on a refusal: versions, a diff, conflicts, options.
    public var details: ErrorDetails? {
        get { box?.details }
        set { box = newValue.map(DetailsBox.init) }
    }

    /// Details live behind a reference so the error stays small: typed throws pass errors
    /// in registers, and a large error value crashed the concurrent indexer (Swift 6.3.1).
    private var box: DetailsBox?

    public init(
        _ code: Code, _ message: String, hint: String? = nil, details: ErrorDetails? = nil,
        cause: Cause? = nil
    ) {
        self.code = code
        self.message = message
        self.hint = hint
        self.cause = cause
        self.box = details.map(DetailsBox.init)
    }

    public static func == (lhs: NotesError, rhs: NotesError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.hint == rhs.hint
            && lhs.details == rhs.details
            && lhs.cause == rhs.cause
    }

    public var description: String {
        if let hint { return "\(message) (\(hint))" }
        return message
    }

    /// A system call's failure with `errno` `code`: `io_error` when the caller can act on it
    /// (a full disk or quota, a read-only disk, permissions), else `internal`; the number is
    /// in ``ErrorDetails/errno``.
    public static func system(
        _ code: Int32, _ message: String, hint: String? = nil, path: String? = nil,
        cause: Cause? = nil
    ) -> NotesError {
        NotesError(
            isActionable(errno: code) ? .ioError : .internal, message, hint: hint,
            details: ErrorDetails(path: path, errno: code), cause: cause)
    }

    /// Whether `errno` names a condition the person can fix: space, quota, a read-only
    /// disk, permissions, a file where a folder should be or a folder where a file should.
    public static func isActionable(errno code: Int32) -> Bool {
        [ENOSPC, EDQUOT, EROFS, EACCES, EPERM, ENOTDIR, EISDIR].contains(code)
    }

    /// The system's error number behind this error, when it came from a system call.
    public var errno: Int32? { details?.errno }
}

private final class DetailsBox: Sendable {
    let details: ErrorDetails
    init(_ details: ErrorDetails) { self.details = details }
}
