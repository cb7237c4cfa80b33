import GRDB
import NotesCore

/// `notes_protected(path)`: whether the workspace hides `path` from agents (protected, or
/// `deny` in the policy).
enum ProtectedPathFunction {
    static func make(_ policy: PathPolicy) -> DatabaseFunction {
        let verdicts = HiddenPathCache(policy)
        return DatabaseFunction("notes_protected", argumentCount: 1, pure: true) { values in
            guard let path = String.fromDatabaseValue(values[0]) else { return false }
            return verdicts.isHidden(path)
        }
    }
}
