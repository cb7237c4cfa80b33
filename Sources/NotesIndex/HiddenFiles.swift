import GRDB
import NotesCore

/// The files an agent may not see (docs/spec.md §10: protected paths and `deny` rules), kept in the
/// index as `files.hidden`, so an agent's search finds them with one small indexed read
/// instead of asking the policy about every matching file, which grows with the answer
/// (docs/performance-history.md).
///
/// The flags hold for one policy, which `meta.hidden_policy` names
/// (``PathPolicy/fingerprint``). Every write transaction of a refresh first makes the flags
/// follow its own policy (``adopt(_:_:)``), and a reader trusts them only when they were set
/// under its own policy (``ids(_:policy:)``), asking the policy per file otherwise. So a
/// process started before the person changed the config can slow another down for one
/// refresh, but never make it show a file that its policy hides.
enum HiddenFiles {
    static let metaKey = "hidden_policy"

    /// The ids of the files `policy` hides (usually none), or nil when the index's flags
    /// were set under another policy.
    static func ids(_ db: Database, policy: PathPolicy) throws -> Set<Int64>? {
        guard try isCurrent(db, policy: policy) else { return nil }
        return try Set(Int64.fetchAll(db, sql: "SELECT id FROM files WHERE hidden"))
    }

    /// Whether the flags were set under `policy`.
    static func isCurrent(_ db: Database, policy: PathPolicy) throws -> Bool {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [metaKey])
            == policy.fingerprint
    }

    /// Whether `policy` hides `path` from the agent.
    static func hides(_ policy: PathPolicy, _ path: String) -> Bool {
        policy.rule(for: path) == .deny
    }

    /// Makes every file's flag follow `policy`, unless the flags were set under it already
    /// (then this is one read of `meta`). Call inside a write transaction.
    static func adopt(_ policy: PathPolicy, _ db: Database) throws {
        guard try !isCurrent(db, policy: policy) else { return }
        let update = try db.makeStatement(sql: "UPDATE files SET hidden = ? WHERE id = ?")
        let rows = try Row.fetchCursor(db, sql: "SELECT id, path, hidden FROM files")
        var changes: [(id: Int64, hidden: Bool)] = []
        while let row = try rows.next() {
            let hidden = hides(policy, row[1])
            if hidden != row[2] { changes.append((row[0], hidden)) }
        }
        for change in changes { try update.execute(arguments: [change.hidden, change.id]) }
        try db.execute(
            sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
            arguments: [metaKey, policy.fingerprint])
    }
}
