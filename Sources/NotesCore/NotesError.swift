/// A failure that a person or an agent must act on, with a stable code.
///
/// The codes are the contract of SPEC §7 (agents branch on them) and §12 (the CLI prints
/// `notes: <message> (<hint>)` and exits 2). Recoverable per-file problems are not errors:
/// they are ``Diagnostic`` values collected while indexing.
public struct NotesError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Stable machine-readable error codes (SPEC §7).
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
        case `internal` = "internal"
    }

    /// What kind of failure this is.
    public var code: Code
    /// What went wrong, in one sentence.
    public var message: String
    /// What to do about it, in a few words (shown in parentheses by the CLI).
    public var hint: String?

    public init(_ code: Code, _ message: String, hint: String? = nil) {
        self.code = code
        self.message = message
        self.hint = hint
    }

    public var description: String {
        if let hint { return "\(message) (\(hint))" }
        return message
    }
}
