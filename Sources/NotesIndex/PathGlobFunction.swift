import GRDB
import NotesCore

/// `notes_glob(pattern, path)`: docs/spec.md §4.1 `path:` globs inside SQL.
enum PathGlobFunction {
    static let cache = GlobCache()

    /// A function object per connection: SQLite releases it when that connection closes.
    static func make() -> DatabaseFunction {
        DatabaseFunction("notes_glob", argumentCount: 2, pure: true) { values in
            guard let pattern = String.fromDatabaseValue(values[0]),
                let path = String.fromDatabaseValue(values[1])
            else { return false }
            return cache.glob(pattern).matches(path)
        }
    }
}
