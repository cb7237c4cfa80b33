import Foundation
import GRDB
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// First builds (an empty index and a large refresh: a new workspace, `notes index
/// --rebuild`, a rebuild after damage or a schema change) are written into a private
/// database file with no journal and no fsyncs, get their secondary indexes once at the
/// end, and are then switched to WAL, synced and renamed into place. Writing the live file
/// goes through its WAL, which writes every page twice (docs/performance-history.md). A
/// crash mid-build leaves the live index as it was (empty)
/// and a leftover file the next process removes.
///
/// A rebuild while other processes have the index open cannot rename a file under them: it
/// builds its private file the same way and then copies it into the live database in one
/// write transaction (SQLite's backup), so their searches see the old index or the new
/// one, never an emptied or half-refilled one.
extension NoteIndex {
    /// Where a fresh build writes before the swap.
    var buildingPath: String { databasePath + ".building" }

    /// Where a rebuild that copies into the live database writes first: named by process,
    /// since other processes keep the index open meanwhile (and remove ``buildingPath``
    /// when they open it).
    var rebuildingPath: String { databasePath + Self.rebuildingInfix + String(getpid()) }

    /// Between the database's name and the process id in ``rebuildingPath``.
    static let rebuildingInfix = ".rebuilding."

    /// What ``buildFresh`` did.
    enum FreshBuild {
        /// Built and swapped in; the writer holds the counts.
        case built(IndexWriter)
        /// Not built (someone else has the index open, or the private file could not be
        /// made): write the live database as usual.
        case declined
        /// Another process built the index while this one waited: refresh again.
        case builtElsewhere
    }

    /// Builds `work` into a fresh database and swaps it in, when no other process has the
    /// index open (``IndexUseLock``); when others do and this is a rebuild (`replacing`),
    /// copies it into the live database instead. The folder stamps of the walk `stamps` are
    /// recorded under its ignore `rules`.
    func buildFresh(
        _ work: [PendingFile], replacing: Bool, stamps: WorkspaceScan, rules: IgnoreRules,
        racyBefore: Int64, report: inout RefreshReport,
        progress: (@Sendable (RefreshProgress) -> Void)?
    ) throws(NotesError) -> FreshBuild {
        let copiesIn: Bool
        switch try takeForBuilding(replacing: replacing) {
        case .alone: copiesIn = false
        case .besideOthers: copiesIn = true
        case .declined: return .declined
        case .builtElsewhere: return .builtElsewhere
        }
        defer { useLock.share() }
        let temporary = copiesIn ? rebuildingPath : buildingPath
        // A rebuild killed mid-way left its private file (and the live index as it was).
        if copiesIn {
            FileSystem.removeFilesOfEndedProcesses(
                in: directory, prefix: Self.databaseFileName + Self.rebuildingInfix)
        }
        Self.removeDatabase(at: temporary)
        guard let queue = createBuildingDatabase(at: temporary) else { return .declined }
        let writer = IndexWriter(
            pool: queue, mode: .freshBuild, racyBefore: racyBefore, policy: workspace.config.policy)
        // A file that is copied in and removed is never fsynced: no writeback for it.
        let writeback = copiesIn ? nil : Writeback(path: temporary)
        report.outsideEdits = index(
            work, with: writer, report: &report, progress: progress,
            afterEachBatch: writeback?.start)
        writer.finish()
        writeback?.start()
        do {
            if let failure = writer.failure { throw failure }
            let began = Timestamp.now()
            try completeSchema(queue, stamps: stamps, rules: rules)
            writeback?.start()
            if copiesIn {
                try copyIntoLive(queue)
                try queue.close()
                Self.removeDatabase(at: temporary)
                report.timings.write += Timestamp.now() - began
                return .built(writer)
            }
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try queue.close()
            try Self.sync(temporary)
            report.timings.write += Timestamp.now() - began
        } catch {
            try? queue.close()
            Self.removeDatabase(at: temporary)
            reopen()
            throw wrap(error)
        }
        try swapIn(temporary)
        return .built(writer)
    }

    /// How ``takeForBuilding(replacing:)`` found the index.
    private enum BuildAccess {
        /// No other process has it open: build aside and rename into place.
        case alone
        /// Others have it open and this is a rebuild: build aside and copy in.
        case besideOthers
        /// Others have it open (not a rebuild), or a connection would not close.
        case declined
        /// Another process built it while this one waited.
        case builtElsewhere
    }

    /// Closes this process's connections, then asks for the index alone (``IndexUseLock``):
    /// a failed upgrade to the exclusive lock drops the shared one (Linux), and no process
    /// may have the file open without it. Unless alone, the connections open again.
    private func takeForBuilding(replacing: Bool) throws(NotesError) -> BuildAccess {
        let closed = currentPool.withLock { (pool: inout DatabasePool?) -> Bool in
            guard let open = pool else { return true }
            guard (try? open.close()) != nil else { return false }
            pool = nil
            return true
        }
        guard closed else { return .declined }
        switch try useLock.tryExclusive() {
        case .exclusive:
            return .alone
        case .othersHaveItOpen:
            reopen()
            return replacing ? .besideOthers : .declined
        case .anotherProcessBuilt:
            reopen()
            return .builtElsewhere
        }
    }

    /// A private database at `temporary` with the schema but no secondary indexes, no
    /// journal and no fsyncs. Nil when it cannot be made: the file is removed and this
    /// process's connections open again.
    private func createBuildingDatabase(at temporary: String) -> DatabaseQueue? {
        do {
            var configuration = Configuration()
            // the writer's one transaction spans its batches
            configuration.allowsUnsafeTransactions = true
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
                try TokenReplay.register(db)
            }
            IndexFolder.createPrivateFile(temporary)
            let queue = try DatabaseQueue(path: temporary, configuration: configuration)
            try queue.write { db in
                try IndexSchema.create(db, secondaryIndexes: false)
                try db.execute(
                    sql: "INSERT INTO meta(key, value) VALUES ('schema', ?), ('root', ?)",
                    arguments: [IndexSchema.version, workspace.root])
                try IndexedSizeLimit.record(workspace.config.indexMaxBytes, db)
            }
            return queue
        } catch {
            Self.removeDatabase(at: temporary)
            reopen()
            return nil
        }
    }

    /// After the files are written: the secondary indexes, the walk's folder stamps and the
    /// layout triggers, in one transaction.
    private func completeSchema(_ queue: DatabaseQueue, stamps: WorkspaceScan, rules: IgnoreRules)
        throws
    {
        try queue.write { db in
            try IndexSchema.createSecondaryIndexes(db)
            // No other process can have touched this file: the walk's listings stand (a
            // file that vanished before it was read moved its folder's ctime). Only a
            // walk that listed every folder has every stamp; else the next walk makes them.
            if stamps.listedEverything && stamps.stamped {
                try FolderStamps.record(stamps, rules: rules, checking: false, db)
            }
            try IndexSchema.createLayoutTriggers(db)
        }
    }

    /// Replaces the live database's content with `built`'s in one write transaction
    /// (SQLite's backup API writes every page through the live WAL): readers in other
    /// processes keep the old snapshot until it commits. The layout snapshot described the
    /// old rows, so it goes.
    private func copyIntoLive(_ built: DatabaseQueue) throws {
        let live = try pool
        let pageSizes = (
            try built.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") },
            try live.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") }
        )
        // A WAL database takes a backup only from a source of its own page size.
        guard pageSizes.0 == pageSizes.1 else {
            throw NotesError(
                .busy,
                "cannot copy the rebuilt index into place while other processes use it (page size \(pageSizes.0 ?? 0) vs \(pageSizes.1 ?? 0))",
                hint:
                    "stop the other notes processes using this workspace and run `notes index --rebuild` again"
            )
        }
        try built.backup(to: live)
        LayoutSnapshot.remove(in: directory)
    }

    /// Replaces the live database with `temporary` (this process's pool is closed and
    /// nobody else has the file open): removes the old file's `-wal`/`-shm` (SQLite would
    /// replay a stale WAL into the new file), renames, and opens the new file.
    private func swapIn(_ temporary: String) throws(NotesError) {
        let path = databasePath
        for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
        let renamed = rename(temporary, path) == 0
        let code = errno
        if renamed { try? Self.sync(directory) }
        Self.removeDatabase(at: temporary)
        reopen()
        if !renamed {
            throw IndexFolder.explain(
                directory, errno: code,
                detail:
                    "cannot put the new search index in place: \(String(cString: strerror(code)))")
        }
    }

    /// Lets the live database be opened again on first use after ``buildFresh`` closed it
    /// (a `notes index` that only builds never opens it; the next reader does).
    private func reopen() {
        currentPool.withLock { (pool: inout DatabasePool?) in pool = nil }
    }

    /// fsyncs a file or folder.
    static func sync(_ path: String) throws {
        #if canImport(Glibc)
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        #else
            let fd = Darwin.open(path, O_RDONLY | O_CLOEXEC)
        #endif
        guard fd >= 0 else {
            throw NotesError.system(
                errno, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard fsync(fd) == 0 else {
            throw NotesError.system(
                errno, "cannot sync \(path): \(String(cString: strerror(errno)))")
        }
    }
}
