import CWriteback
import Foundation
import GRDB
import NotesCore
import NotesStore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// First builds (an empty index and a large refresh: a new workspace, `notes index
/// --rebuild`, a rebuild after damage or a schema change) are written into a private
/// database file with no journal and no fsyncs, get their secondary indexes once at the
/// end, and are then switched to WAL, synced and renamed into place. Writing the live file
/// goes through its WAL, which writes every page twice; that was 15–20% of the writer's
/// time (docs/performance.md). A crash mid-build leaves the live index as it was (empty)
/// and a leftover file the next process removes.
extension NoteIndex {
    /// Where a fresh build writes before the swap.
    var buildingPath: String { databasePath + ".building" }

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
    /// index open (``IndexUseLock``); the folder stamps of the walk `stamps` are recorded
    /// under its ignore `rules`.
    func buildFresh(_ work: [PendingFile], stamps: WorkspaceScan, rules: IgnoreRules, racyBefore: Int64, histories: [String: PathHistory], report: inout RefreshReport,
                    progress: (@Sendable (RefreshProgress) -> Void)?) throws(NotesError) -> FreshBuild {
        // This process's connections close first: a failed upgrade to the exclusive lock
        // drops the shared one (Linux), and no process may have the file open without it.
        let closed = currentPool.withLock { (pool: inout DatabasePool?) -> Bool in
            guard let open = pool else { return true }
            guard (try? open.close()) != nil else { return false }
            pool = nil
            return true
        }
        guard closed else { return .declined }
        switch useLock.tryExclusive() {
        case .exclusive:
            break
        case .othersHaveItOpen:
            reopen()
            return .declined
        case .anotherProcessBuilt:
            reopen()
            return .builtElsewhere
        }
        defer { useLock.share() }
        let temporary = buildingPath
        Self.removeDatabase(at: temporary)
        let queue: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true  // the writer's one transaction spans its batches
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
                try TokenReplay.register(db)
            }
            queue = try DatabaseQueue(path: temporary, configuration: configuration)
            try queue.write { db in
                try IndexSchema.create(db, secondaryIndexes: false)
                try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('schema', ?), ('root', ?)",
                               arguments: [IndexSchema.version, workspace.root])
            }
        } catch {
            Self.removeDatabase(at: temporary)
            reopen()
            return .declined
        }
        let writer = IndexWriter(pool: queue, gone: [:], racyBefore: racyBefore, histories: histories, bulk: true, policy: workspace.config.policy, startsEmpty: true)
        // The build's file goes out to the disk while parsing goes on (SQLite spills its
        // cache as it grows), so the fsync before the swap has little left to write.
        #if canImport(Glibc)
        let written = Glibc.open(temporary, O_RDONLY | O_CLOEXEC)
        #else
        let written = Darwin.open(temporary, O_RDONLY | O_CLOEXEC)
        #endif
        defer { if written >= 0 { close(written) } }
        let startWriteback = { if written >= 0 { _ = notes_start_writeback(written) } }
        _ = index(work, with: writer, report: &report, progress: progress, afterEachBatch: startWriteback)
        writer.finish()
        startWriteback()
        do {
            if let failure = writer.failure { throw failure }
            let began = Timestamp.now()
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
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try queue.close()
            try Self.sync(temporary)
            report.timings.write += Timestamp.now() - began
        } catch {
            try? queue.close()
            Self.removeDatabase(at: temporary)
            reopen()
            throw Self.wrap(error)
        }
        try swapIn(temporary)
        return .built(writer)
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
            throw NotesError(.internal, "cannot put the new search index in place: \(String(cString: strerror(code)))",
                             hint: "check that \(directory) is writable")
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
        guard fd >= 0 else { throw NotesError(.internal, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw NotesError(.internal, "cannot sync \(path): \(String(cString: strerror(errno)))") }
    }
}
