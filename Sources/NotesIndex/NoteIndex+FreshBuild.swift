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

    /// Builds `work` into a fresh database and swaps it in, when no other process has the
    /// index open (``IndexUseLock``). Returns nil when it did not (someone else has it
    /// open, or the private file could not be made): the caller then writes the live
    /// database as usual.
    func buildFresh(_ work: [PendingFile], racyBefore: Int64, histories: [String: PathHistory], report: inout RefreshReport,
                    progress: (@Sendable (RefreshProgress) -> Void)?) throws(NotesError) -> IndexWriter? {
        guard useLock.tryExclusive() else { return nil }
        defer { useLock.share() }
        let temporary = buildingPath
        Self.removeDatabase(at: temporary)
        let queue: DatabaseQueue
        do {
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF")
                try db.execute(sql: "PRAGMA synchronous = OFF")
            }
            queue = try DatabaseQueue(path: temporary, configuration: configuration)
            try queue.write { db in
                try IndexSchema.create(db, secondaryIndexes: false)
                try db.execute(sql: "INSERT INTO meta(key, value) VALUES ('schema', ?), ('root', ?)",
                               arguments: [IndexSchema.version, workspace.root])
            }
        } catch {
            Self.removeDatabase(at: temporary)
            return nil
        }
        let writer = IndexWriter(pool: queue, gone: [:], racyBefore: racyBefore, histories: histories, bulk: true)
        _ = index(work, with: writer, report: &report, progress: progress)
        writer.finish()
        do {
            if let failure = writer.failure { throw failure }
            let began = Timestamp.now()
            try queue.write { db in try IndexSchema.createSecondaryIndexes(db) }
            try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
            try queue.close()
            try Self.sync(temporary)
            report.timings.write += Timestamp.now() - began
        } catch {
            try? queue.close()
            Self.removeDatabase(at: temporary)
            throw Self.wrap(error)
        }
        try swapIn(temporary)
        return writer
    }

    /// Replaces the live database with `temporary`: closes this process's pool (nobody
    /// else has the file open), removes the old file's `-wal`/`-shm` (SQLite would replay a
    /// stale WAL into the new file), renames, and opens the new file.
    private func swapIn(_ temporary: String) throws(NotesError) {
        let path = databasePath
        let root = workspace.root
        let policy = workspace.config.policy
        let outcome = currentPool.withLock { (pool: inout DatabasePool) -> Result<Void, NotesError> in
            do {
                try pool.close()
            } catch {
                Self.removeDatabase(at: temporary)
                return .failure(Self.wrap(error))
            }
            for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
            let renamed = rename(temporary, path) == 0
            let code = errno
            if renamed { try? Self.sync(URL(fileURLWithPath: path).deletingLastPathComponent().path) }
            Self.removeDatabase(at: temporary)
            return Result { () throws(NotesError) in
                do {
                    pool = try Self.open(path: path, root: root, policy: policy)
                } catch {
                    pool = try Self.recreate(at: path, root: root, policy: policy)
                }
                if !renamed {
                    throw NotesError(.internal, "cannot put the new search index in place: \(String(cString: strerror(code)))",
                                     hint: "check that \(URL(fileURLWithPath: path).deletingLastPathComponent().path) is writable")
                }
            }
        }
        try outcome.get()
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
