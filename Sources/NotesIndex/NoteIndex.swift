import Foundation
import GRDB
import NotesCore

/// The per-device search index of one workspace (docs/spec.md §2, §4): a SQLite FTS5 cache in WAL
/// mode, derived entirely from the files and rebuilt whenever it is missing, corrupt, of an
/// older schema or belongs to another workspace. Deleting it loses nothing.
///
/// Writes use immediate transactions and a busy timeout, so the CLI, the MCP server and
/// `notes watch` can share one index without "database is locked" reaching a caller.
public final class NoteIndex: Sendable {
    /// The workspace this index describes.
    public let workspace: Workspace
    /// The folder holding `index.sqlite` (outside the workspace).
    public let directory: String
    /// The connection pool; replaced when the database turns out to be damaged. nil until
    /// first use when there was no database yet (a first build then writes its own file
    /// without creating the live one first), and after a first build swapped its file in.
    let currentPool: Locked<DatabasePool?>

    /// The connection pool, opened (or created) on first use.
    var pool: DatabasePool {
        get throws(NotesError) {
            try useLock.ensureShared()
            let path = databasePath
            let root = workspace.root
            let policy = workspace.config.policy
            let mapped = isMapped
            let outcome = currentPool.withLock {
                (pool: inout DatabasePool?) -> Result<DatabasePool, NotesError> in
                if let pool { return .success(pool) }
                return Result { () throws(NotesError) -> DatabasePool in
                    let opened = try Self.openOrStartOver(
                        path: path, root: root, policy: policy, mapped: mapped)
                    pool = opened
                    return opened
                }
            }
            return try outcome.get()
        }
    }

    /// Whether another process was building the index when this one opened it without
    /// waiting (`waitForBuilders: false`); the first use waits for it.
    public var isWaitingForABuild: Bool { useLock.isPending }

    /// Whether the pool is open now (a first build skips opening one it does not need).
    var isPoolOpen: Bool { currentPool.withLock { $0 != nil } }
    /// Where refreshes settle the outside edits they find and read effective provenance
    /// (``ChangeLedger``); nil: none (the front matter's provenance; nothing recorded).
    let ledger: (any ChangeLedger)?
    /// Seconds a folder must have been left alone before its stamp is trusted (its ctime
    /// would not move for a change within the filesystem's timestamp granularity). Tests
    /// shorten it rather than wait.
    let folderTrustDelay = Locked<Double>(2)
    /// This process's hold on the database file (see ``IndexUseLock``).
    let useLock: IndexUseLock
    /// Whether the database is read through a memory map (``init(workspace:directory:longLived:refreshingSoon:)``).
    let isMapped: Bool
    /// The layout snapshot whose stats started when the index was opened, until the first
    /// whole-workspace refresh takes it (``knownFromSnapshot(stampRules:)``).
    let pendingLayout: Locked<PendingLayout?>
    /// The stored vectors as last read, for a long-lived process's searches (``VectorTable``).
    let vectorCache = Locked<VectorTable?>(nil)
    /// The last coverage a search counted, and what it was counted for: the vector table's
    /// generation and the files' layout token (``LayoutSnapshot``). The token's triggers
    /// watch `path`, `size`, `mtime_ns` and `inode`; a file's section count and `indexed`
    /// change only through IndexWriter's update of the whole row, which sets those too.
    let coverageCache = Locked<(key: String, counts: FilesWithText)?>(nil)

    /// Where the database file is.
    public var databasePath: String { directory + "/" + Self.databaseFileName }

    /// The database file's name in the index folder.
    static let databaseFileName = "index.sqlite"

    /// Opens (creating or rebuilding as needed) the index of `workspace` in `directory`.
    ///
    /// A `longLived` process (the MCP server) reads the database through a memory map:
    /// its repeated searches then touch pages without a system call and a copy each. A
    /// short command would pay more in page faults than it saves, so it reads with `pread`
    /// (docs/performance-history.md).
    ///
    /// `refreshingSoon`: the caller refreshes the whole workspace next (a command that reads
    /// the index). The known files' stats then start now from the layout snapshot, on other
    /// threads, while the database opens (``LayoutSnapshot``).
    ///
    /// `waitForBuilders: false` (the MCP server, which must answer `initialize` whatever
    /// the index is doing): when another process is building the index, this returns at
    /// once and the first use waits for the build (bounded, `busy` after; ``IndexUseLock``).
    ///
    /// `ledger`: the change history refreshes settle with (``ChangeLedger``); the session
    /// that opens a workspace passes one (NotesSession's `WorkspaceSession`).
    public init(
        workspace: Workspace, directory: String, longLived: Bool = false,
        refreshingSoon: Bool = false, waitForBuilders: Bool = true,
        ledger: (any ChangeLedger)? = nil
    ) throws(NotesError) {
        self.workspace = workspace
        self.directory = directory
        self.ledger = ledger
        self.isMapped = longLived
        // A folder that cannot hold the index leaves the index closed: each use tries again
        // and says why it cannot (``IndexFolder``); reading and writing files go on without it.
        var problem: NotesError?
        do {
            try IndexFolder.prepare(directory)
        } catch {
            problem = error
        }
        pendingLayout = Locked(
            refreshingSoon && problem == nil
                ? Self.startStats(workspace: workspace, directory: directory) : nil)
        useLock =
            problem == nil
            ? try IndexUseLock(directory: directory, waiting: waitForBuilders)
            : IndexUseLock(unusable: ())
        let path = directory + "/" + Self.databaseFileName
        if useLock.isPending || problem != nil {
            currentPool = Locked(nil)  // opened at first use (once the build is done)
            unusableAtStart = problem
            return
        }
        // A fresh build holds the lock exclusively, so one left now was cut short by a crash.
        if useLock.isHeld { Self.removeDatabase(at: path + ".building") }
        // No database yet: the first refresh builds one (in a file of its own when it is
        // large, ``buildFresh``); creating the live schema first only to replace it cost a
        // few milliseconds of every first build.
        guard FileSystem.exists(path) else {
            currentPool = Locked(nil)
            unusableAtStart = nil
            return
        }
        do {
            currentPool = Locked(
                try Self.openOrStartOver(
                    path: path, root: workspace.root, policy: workspace.config.policy,
                    mapped: longLived))
            unusableAtStart = nil
        } catch  where error.cause == .indexUnusable {
            currentPool = Locked(nil)
            unusableAtStart = error
        }
    }

    /// Why the index could not be used when this process opened it (nil: it could). Each
    /// use tries again, so freeing space or fixing the folder needs no restart.
    public let unusableAtStart: NotesError?

    /// Starts reading the layout snapshot in `directory` and statting its folders and files,
    /// on other threads, when there is one (made under this workspace's ignore rules, on a
    /// filesystem whose folder stamps are trusted).
    static func startStats(workspace: Workspace, directory: String) -> PendingLayout? {
        let scanner = FileScanner(workspace: workspace)
        guard scanner.skipsUnchangedFolders, FileSystem.exists(LayoutSnapshot.path(in: directory))
        else { return nil }
        return PendingLayout(
            root: workspace.root, directory: directory,
            fingerprint: FolderStamps.fingerprint(scanner.rules))
    }

    /// Opens the database at `path`, or an empty one in its place when it is corrupt, foreign
    /// or of another schema (it is a cache). Anything else (busy past the timeout,
    /// unreadable) is reported: deleting a database other processes use would leave them
    /// writing into an unlinked file.
    static func openOrStartOver(path: String, root: String, policy: PathPolicy, mapped: Bool)
        throws(NotesError) -> DatabasePool
    {
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        do {
            try IndexFolder.prepare(directory)
            IndexFolder.createPrivateFile(path)
            return try Self.open(path: path, root: root, policy: policy, mapped: mapped)
        } catch {
            let wrapped = Self.wrap(error, directory: directory)
            guard wrapped.cause != .indexUnusable,
                error is NotesError || wrapped.cause == .indexDamaged
            else { throw wrapped }
            return try Self.recreate(at: path, root: root, policy: policy, mapped: mapped)
        }
    }

    deinit {
        // Leaves a short log for the next process (``WALSharing``); a pool never opened has none.
        if let pool = currentPool.withLock({ $0 }) {
            WALSharing.compact(pool, logPath: databasePath + "-wal")
        }
    }

    static func recreate(at path: String, root: String, policy: PathPolicy, mapped: Bool)
        throws(NotesError) -> DatabasePool
    {
        Self.removeDatabase(at: path)
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        do {
            IndexFolder.createPrivateFile(path)
            return try Self.open(path: path, root: root, policy: policy, mapped: mapped)
        } catch {
            let wrapped = Self.wrap(error, directory: directory)
            // A folder that refuses, a disk that is full, a lock held past the wait: the
            // caller can act on those as they are.
            if wrapped.cause == .indexUnusable || wrapped.code != .internal { throw wrapped }
            throw NotesError(
                .internal, "cannot create the search index at \(path): \(error)",
                hint: "check that folder, or set NOTES_INDEX_DIR to another folder")
        }
    }

    /// Replaces a damaged database with an empty one (the caller refreshes it from the
    /// files). Other processes using the old file get their own damage error and do the same.
    func startOver() throws(NotesError) {
        let outcome = currentPool.withLock {
            (pool: inout DatabasePool?) -> Result<Void, NotesError> in
            try? pool?.close()
            return Result { () throws(NotesError) in
                pool = try Self.recreate(
                    at: databasePath, root: workspace.root, policy: workspace.config.policy,
                    mapped: isMapped)
            }
        }
        try outcome.get()
    }

    /// Runs `body`; when it meets a damaged database (SQLITE_CORRUPT, SQLITE_NOTADB), starts
    /// over from an empty index, refreshes it from the files and runs `body` once more.
    /// The index is a cache (docs/spec.md §2): damage costs a rebuild, never an error.
    func recoveringFromDamage<T>(_ body: () throws(NotesError) -> T) throws(NotesError) -> T {
        do throws(NotesError) {
            return try body()
        } catch {
            guard error.cause == .indexDamaged else { throw error }
            Notices.post(
                .indexRebuilt,
                "notes: the search index was damaged (\(error.message.dropFirst(Self.damageMessage.count))); rebuilding it from the files"
            )
            try startOver()
            _ = try refreshOnce(only: nil, progress: nil)
            return try body()
        }
    }

    /// Verifies the whole database (`PRAGMA quick_check`, FTS5's `integrity-check`), which
    /// finds damage no query has touched yet; on damage starts over and refreshes from the
    /// files (`notes index --check`). Returns what was found (empty: healthy).
    public func checkAndRepair() throws(NotesError) -> [String] {
        var problems: [String] = []
        do {
            try pool.write { db in
                let rows = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if rows != ["ok"] { problems += rows.prefix(5) }
                if problems.isEmpty {
                    try db.execute(sql: "INSERT INTO fts(fts, rank) VALUES ('integrity-check', 0)")
                }
            }
        } catch {
            // Only damage is a finding. Anything else (another process holding the index
            // past the busy timeout, an unreadable file) is reported: starting over would
            // delete a database other processes are writing.
            let wrapped = wrap(error)
            guard wrapped.cause == .indexDamaged else { throw wrapped }
            problems.append((error as? DatabaseError)?.message ?? wrapped.message)
        }
        if !problems.isEmpty {
            try startOver()
            _ = try refreshOnce(only: nil, progress: nil)
        }
        return problems
    }

    /// The start of the message of a damaged-database error.
    static let damageMessage = "search index damaged: "

    /// SQLite's `mmap_size` on this index's read connections (0: not mapped).
    func mapSizeInForce() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") ?? 0 }
    }

    /// The memory map's size when mapped (SQLite's largest on Linux, 2 GB; beyond it, pages
    /// are read as usual).
    static let mapSize = 2_147_418_112

    /// The reading connections' set-up. `mapped` (a long-lived process) also shares the
    /// sections' lengths between searches (``SectionRank``).
    static func configuration(path: String, policy: PathPolicy, mapped: Bool) -> Configuration {
        var config = Configuration()
        config.busyMode = .timeout(busyTimeout)
        config.prepareDatabase { db in
            try WALSharing.keep(db)
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if mapped { try db.execute(sql: "PRAGMA mmap_size = \(mapSize)") }
            try TokenReplay.register(db)
            try SectionRank.register(db, path: path, sharingLengths: mapped)
            db.add(function: PathGlobFunction.make())
            db.add(function: ProtectedPathFunction.make(policy))
        }
        return config
    }

    static func open(path: String, root: String, policy: PathPolicy, mapped: Bool) throws
        -> DatabasePool
    {
        let pool = try openPool(
            path: path, configuration: configuration(path: path, policy: policy, mapped: mapped))
        let triggers =
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\(IndexSchema.layoutTriggerPrefix)%'"
        func stored(_ db: Database) throws -> (version: String?, root: String?, triggers: Int) {
            (
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'schema'"),
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'root'"),
                try Int.fetchOne(db, sql: triggers) ?? 0
            )
        }
        var state = try pool.read { db in try db.tableExists("meta") ? stored(db) : nil }
        if state == nil {
            // Checked again and created in one immediate transaction: commands started
            // together on a new index must not both create the schema (the second failed,
            // then deleted the first one's file to start over).
            state = try pool.write { db -> (version: String?, root: String?, triggers: Int) in
                if try db.tableExists("meta") { return try stored(db) }
                // Some other SQLite database at our path: not ours to add tables to.
                if try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0 > 0 {
                    return (nil, nil, 0)
                }
                try IndexSchema.create(db)
                try db.execute(
                    sql: "INSERT INTO meta(key, value) VALUES ('schema', ?), ('root', ?)",
                    arguments: [IndexSchema.version, root])
                return (IndexSchema.version, root, IndexSchema.layoutTriggerCount)
            }
        }
        guard let state, state.version == IndexSchema.version && state.root == root else {
            throw NotesError(.internal, "index is stale, foreign or not a notes index")
        }
        // An index made before the layout triggers, or replaced by an older `notes`, gets
        // them now (once).
        if state.triggers != IndexSchema.layoutTriggerCount {
            try pool.write { db in try IndexSchema.createLayoutTriggers(db) }
        }
        // A process killed before it compacted may have left a long log.
        WALSharing.compact(pool, logPath: path + "-wal")
        return pool
    }

    /// Opens a pool on `path`, waiting out the lock SQLite's busy timeout does not wait for
    /// while it opens: switching a new file to WAL while another process holds its write lock
    /// (SQLite answers SQLITE_BUSY at once rather than risk a deadlock between two
    /// upgrading readers). Commands started together on a new index met it. The switch is
    /// done once, so a retry succeeds as soon as the other process is through.
    static func openPool(path: String, configuration: Configuration) throws -> DatabasePool {
        let deadline = Timestamp.now() + busyTimeout
        var pause: UInt32 = 500
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError
                where error.resultCode == .SQLITE_BUSY && Timestamp.now() < deadline
            {
                usleep(pause)
                pause = min(pause * 2, 20_000)
            }
        }
    }

    /// How long a command waits for another process's lock on the index, in seconds (10;
    /// `NOTES_BUSY_TIMEOUT` shortens it for tests).
    static let busyTimeout: Double =
        ProcessInfo.processInfo.environment["NOTES_BUSY_TIMEOUT"].flatMap(Double.init).map {
            max(0, $0)
        } ?? 10

    static func removeDatabase(at path: String) {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    }

    /// Empties the live index, row by row, in one transaction (a rebuild of an empty
    /// workspace, or one whose private file could not be made; ``rebuild(progress:)``).
    func erase() throws(NotesError) {
        do {
            try pool.write { db in
                for table in ["files", "sections", "tags", "metadata", "links", "diagnostics"] {
                    try db.execute(sql: "DELETE FROM \(table)")
                }
                try db.execute(sql: "DELETE FROM fts")
                try db.execute(sql: "DELETE FROM meta WHERE key NOT IN ('schema', 'root')")
                try db.execute(
                    sql: "INSERT INTO meta (key, value) VALUES (\(IndexSchema.databaseToken))")
            }
        } catch {
            throw wrap(error)
        }
    }

    /// Maps database failures to the one error type callers see, explaining a folder that
    /// cannot hold the index (``IndexFolder``).
    func wrap(_ error: any Error) -> NotesError {
        Self.wrap(error, directory: directory)
    }

    /// Maps database failures to the one error type callers see; with `directory`, a disk
    /// or folder that refuses (full, read-only, no permission, cannot open) is explained
    /// from what is there (``IndexFolder/explain(_:errno:full:detail:)``), never with a
    /// hint to rebuild, which would fail the same way.
    static func wrap(_ error: any Error, directory: String? = nil) -> NotesError {
        if let notes = error as? NotesError { return notes }
        if let db = error as? DatabaseError {
            let details = ErrorDetails(sqliteCode: db.extendedResultCode.rawValue)
            let refused: [ResultCode] = [
                .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_PERM,
                .SQLITE_AUTH,
            ]
            if let directory, refused.contains(db.resultCode.primaryResultCode) {
                var explained = IndexFolder.explain(
                    directory, full: db.resultCode.primaryResultCode == .SQLITE_FULL,
                    detail: db.message ?? db.description)
                var withCode = explained.details ?? ErrorDetails()
                withCode.sqliteCode = details.sqliteCode
                explained.details = withCode
                return explained
            }
            switch db.resultCode.primaryResultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return NotesError(
                    .internal, damageMessage + (db.message ?? db.description),
                    hint: "run `notes index --check`",
                    details: details, cause: .indexDamaged)
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                let seconds = busyTimeout.formatted(.number.precision(.fractionLength(0...1)))
                return NotesError(
                    .busy,
                    "the search index is busy: another process has held its lock for over \(seconds) s",
                    hint: "try again once it is done", details: details)
            case .SQLITE_FULL, .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN, .SQLITE_IOERR:
                // The disk or the index folder refused: the person can act (space, permissions).
                return NotesError(
                    .ioError, "the search index cannot be written: \(db.message ?? db.description)",
                    hint:
                        "free disk space or fix the index folder's permissions, or pass --index-dir",
                    details: details)
            default:
                return NotesError(
                    .internal, "search index error: \(db.message ?? db.description)",
                    hint: "run `notes index --rebuild`", details: details)
            }
        }
        return NotesError(
            .internal, "search index error: \(error)", hint: "run `notes index --rebuild`")
    }
}
