import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The history of a workspace (docs/spec.md §6.4): every version the tool replaced, wrote or saw,
/// in a content-addressed store (`.notes/history/objects/ab/cdef…`, named by version, so
/// identical bytes are kept once), and the append-only log `.notes/history/log.jsonl`.
///
/// Both are plain files that a sync client can carry; objects are immutable and the log
/// only grows (lines are whole JSON objects; a torn last line from a crash is skipped).
public final class HistoryStore: @unchecked Sendable {
    let workspace: Workspace
    private let lock = NSLock()
    private var cache = LogCache()

    /// Parsed log, extended incrementally as the file grows (other processes append too).
    private struct LogCache {
        var inode: UInt64 = 0
        var offset = 0
        var records: [ChangeRecord] = []
        var paths: [String: PathHistory] = [:]
    }

    public init(workspace: Workspace) {
        self.workspace = workspace
    }

    static let folder = [".notes", "history"]
    var logPath: String { workspace.stateDirectory + "/history/log.jsonl" }

    // MARK: Objects

    /// Keeps `bytes` in the object store and returns their version.
    ///
    /// `like`: the file the bytes come from (nil: a file readable by all). A version is
    /// never more readable than that file (issue 34): the object keeps only the file's read
    /// bits (a 0600 file's versions are 0400), its folder only the matching `r-x` for group
    /// and others (0700 for a private file; an existing folder is narrowed, never widened),
    /// and, written by root, both belong to the file's owner, who can still read them.
    @discardableResult
    public func store(_ bytes: [UInt8], version known: String? = nil, like source: stat? = nil)
        throws(NotesError) -> String
    {
        let version = known ?? ContentVersion(of: bytes).short
        let objectMode = 0o444 & (source.map { $0.st_mode } ?? 0o444)
        let folderMode: mode_t = 0o700 | ((objectMode & 0o044) | ((objectMode & 0o044) >> 2))
        let folder = try FolderHandle.openOwn(
            root: workspace.root, components: Self.folder + ["objects", String(version.prefix(2))])
        let owner = source.flatMap {
            geteuid() == 0 && $0.st_uid != 0 ? (uid: $0.st_uid, gid: $0.st_gid) : nil
        }
        folder.narrow(to: folderMode, owner: owner)
        let name = String(version.dropFirst(2))
        if case .file(let info) = folder.entry(name) {
            if info.st_mode & 0o077 & ~objectMode != 0 {
                fchmodat(folder.fd, name, info.st_mode & 0o777 & (objectMode | 0o700), 0)
            }
            return version
        }
        do {
            try folder.replace(name, with: bytes, mode: objectMode, owner: owner)
        } catch {
            throw Self.unchanged(error, "could not save a version into .notes/history")
        }
        return version
    }

    /// The bytes of `version`, when the store has them.
    /// Whether the stored copy of `version` is there (without reading it): `notes history`
    /// marks the versions `notes gc` removed, which `restore` cannot bring back.
    public func hasObject(_ version: String) -> Bool {
        guard version.count == 16, version.allSatisfy(\.isHexDigit) else { return false }
        return FileSystem.exists(
            workspace.stateDirectory
                + "/history/objects/\(version.prefix(2))/\(version.dropFirst(2))")
    }

    public func object(_ version: String) -> [UInt8]? {
        guard version.count == 16, version.allSatisfy(\.isHexDigit) else { return nil }
        let path =
            workspace.stateDirectory
            + "/history/objects/\(version.prefix(2))/\(version.dropFirst(2))"
        guard let bytes = try? FileBytes.read(path: path, maxBytes: Int.max),
            ContentVersion(of: bytes).short == version
        else { return nil }
        return bytes
    }

    /// Stored versions whose bytes no longer match their name (disk damage). History is
    /// never rebuilt: damage is reported (`notes index --check`) for the person to act on.
    public func damagedObjects() -> [String] {
        let objects = workspace.stateDirectory + "/history/objects"
        var damaged: [String] = []
        let manager = FileManager.default
        for prefix in ((try? manager.contentsOfDirectory(atPath: objects)) ?? []).sorted() {
            for rest in ((try? manager.contentsOfDirectory(atPath: objects + "/" + prefix)) ?? [])
                .sorted() where !rest.hasPrefix(FolderHandle.temporaryPrefix)
            {
                let bytes = try? FileBytes.read(
                    path: objects + "/" + prefix + "/" + rest, maxBytes: Int.max)
                if bytes.map({ ContentVersion(of: $0).short }) != prefix + rest {
                    damaged.append(prefix + rest)
                }
            }
        }
        return damaged
    }

    /// A version the log names whose stored copy is not in `.notes/history/objects`.
    public struct MissingVersion: Equatable, Sendable, Encodable {
        public let path: String
        public let version: String
    }

    /// The cutoff of the last `notes gc` (versions only older records name may be gone on
    /// purpose), from `.notes/history/pruned-before`; 0 when it never ran.
    var prunedBefore: Double {
        guard
            let bytes = try? FileBytes.read(
                path: workspace.stateDirectory + "/history/pruned-before", maxBytes: 64)
        else { return 0 }
        return Double(
            String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
    }

    /// Whether `record` is older than the last `notes gc` cutoff, so its versions may have
    /// been removed on purpose; a newer record's missing version is damage.
    public func isOlderThanLastGC(_ record: ChangeRecord) -> Bool {
        let cutoff = prunedBefore
        guard cutoff > 0, let time = Timestamp.parse(record.time) else { return false }
        return time < cutoff
    }

    /// Versions named by log records newer than the last `notes gc` cutoff that have no
    /// stored copy (issue 34 item 10: a deleted object was reported as "every version
    /// matches its hash").
    public func missingObjects() -> [MissingVersion] {
        let cutoff = prunedBefore
        var seen = Set<String>()
        var missing: [MissingVersion] = []
        for record in records() {
            if cutoff > 0, let time = Timestamp.parse(record.time), time < cutoff { continue }
            // An outside edit's `before` is the version the index last saw; notes stores it only
            // if a change through notes wrote or replaced it, so its absence is no damage.
            let expected =
                record.operation == .external ? [record.after] : [record.before, record.after]
            for version in expected.compactMap({ $0 })
            where !seen.contains(version) {
                seen.insert(version)
                let path =
                    workspace.stateDirectory
                    + "/history/objects/\(version.prefix(2))/\(version.dropFirst(2))"
                var info = stat()
                if version.count == 16, lstat(path, &info) != 0 {
                    missing.append(MissingVersion(path: record.to ?? record.path, version: version))
                }
            }
        }
        return missing
    }

    /// Whether the log names `version` for `path` (then a missing copy is damage, not a typo).
    public func logNames(_ version: String, of path: String) -> Bool {
        let history = history(of: path)
        return history.records.contains { $0.before == version || $0.after == version }
            || history.last?.after == version || history.last?.before == version
    }

    // MARK: Log

    /// Appends one record to the log and syncs it: the line is written whole or not at all
    /// (issue 34 item 2).
    ///
    /// Appenders take turns on an `flock` of the log itself (bounded, ``LockWait``), so the
    /// line is one `write` of the complete line at a known offset; a short write or an error
    /// (ENOSPC) truncates the file back to its previous length. A torn tail that is still
    /// there (a crash inside the write, or a truncate that failed too) is never glued to:
    /// the new line starts with a newline, and the torn line stays where it is for the
    /// person to see (``logProblems()``: `notes status`, `notes index --check`).
    public func append(_ record: ChangeRecord) throws(NotesError) {
        _ = try FolderHandle.openOwn(root: workspace.root, components: Self.folder)
        let fd =
            WriteFaults.injected(.open)
            ? -1 : open(logPath, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw NotesError.system(
                errno, "cannot open the history log (\(errorText(errno)))",
                hint: "check the permissions of .notes/history")
        }
        defer { close(fd) }
        guard LockWait.poll({ flock(fd, LOCK_EX | LOCK_NB) == 0 }) else {
            throw NotesError(
                .busy,
                "busy: another notes process has held the history log for longer than \(Int(LockWait.timeout)) s",
                hint: "let it finish, then retry")
        }
        defer { flock(fd, LOCK_UN) }
        var line = Self.encode(record)
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw NotesError.system(
                errno, "cannot read the history log's size (\(errorText(errno)))")
        }
        let before = info.st_size
        if before > 0 {
            var last: UInt8 = 0
            if pread(fd, &last, 1, off_t(before - 1)) == 1, last != 0x0A {
                line.insert(0x0A, at: 0)
            }
        }
        var n: Int
        repeat {
            n = WriteFaults.injectedWrite(fd, line)
        } while n < 0 && errno == EINTR
        if n != line.count {
            let code = n < 0 ? errno : ENOSPC  // a short write: the disk filled mid-line
            // When this fails too, the torn bytes stay: the next line starts on a fresh one,
            // and `notes status` reports them.
            _ = ftruncate(fd, before)
            throw NotesError.system(
                code, "cannot write the history log (\(errorText(code))); the log is as it was",
                hint: "free disk space and retry")
        }
        guard !WriteFaults.injected(.fsync), fsync(fd) == 0 else {
            throw NotesError.system(errno, "cannot sync the history log (\(errorText(errno)))")
        }
    }

    /// A line of the log that is not a whole record.
    public struct LogProblem: Equatable, Sendable, Encodable {
        /// 1-based line number in `log.jsonl`.
        public let line: Int
        /// Bytes in the line.
        public let bytes: Int
        /// Whether it is the last line and lacks its newline (a write cut short just now, or
        /// one in progress).
        public let unterminated: Bool
    }

    /// Lines of the log that are not whole records (torn by a crash or a full disk, or
    /// edited by hand). They are skipped by `history` and `log`; each is reported here.
    public func logProblems() -> [LogProblem] {
        guard let bytes = try? FileBytes.read(path: logPath, maxBytes: Int.max) else { return [] }
        var problems: [LogProblem] = []
        let decoder = JSONDecoder()
        var start = 0
        var number = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            number += 1
            let slice = bytes[start..<end]
            if !slice.isEmpty, !Self.looksWhole(slice),
                (try? decoder.decode(ChangeRecord.self, from: Data(slice))) == nil
            {
                problems.append(
                    LogProblem(line: number, bytes: slice.count, unterminated: end == bytes.count))
            }
            start = end + 1
        }
        return problems
    }

    /// A cheap test that a line is one whole record as ``append(_:)`` writes it: `{"…}` with
    /// one `"time":` key (a torn line lacks the closing brace; two glued records have two
    /// keys). Only lines failing it are decoded, so `notes status` on a log of 100,000
    /// changes does not decode each one again. A line that passes but does not decode (a
    /// hand edit keeping the shape) is skipped by `history` without being reported here.
    static func looksWhole(_ line: ArraySlice<UInt8>) -> Bool {
        guard line.count > 2, line.first == UInt8(ascii: "{"),
            line[line.startIndex + 1] == UInt8(ascii: "\""), line.last == UInt8(ascii: "}")
        else { return false }
        let key = Array("\"time\":".utf8)
        var found = 0
        var i = line.startIndex
        let end = line.endIndex - key.count
        while i <= end {
            if line[i] == key[0], line[i..<(i + key.count)].elementsEqual(key) {
                found += 1
                if found > 1 { return false }
                i += key.count
            } else {
                i += 1
            }
        }
        return found == 1
    }

    /// One line for the person about `problems` (nil when there are none).
    public static func describe(_ problems: [LogProblem]) -> String? {
        guard let first = problems.first else { return nil }
        let lines =
            problems.prefix(5).map { String($0.line) }.joined(separator: ", ")
            + (problems.count > 5 ? ", …" : "")
        return
            "the history log .notes/history/log.jsonl has \(problems.count) damaged line(s) (line \(lines)\(first.unterminated && problems.count == 1 ? ", cut short" : "")), skipped by `notes history`: "
            + "a write was torn by a crash or a full disk, or the file was edited; every other line is read, and the files are unaffected "
            + "(to tidy it, move those lines out of the file by hand; notes never rewrites it)"
    }

    /// Appends the record of a change that is already visible. A failure says so, since
    /// "nothing was changed" would be false: the intent stays and the next writer logs it.
    func logVisibleChange(_ record: ChangeRecord) throws(NotesError) {
        do {
            try append(record)
        } catch {
            throw NotesError(
                .internal,
                "the change to \(record.path) was made, but its history log line could not be written (\(error.message)); the next notes write adds it",
                hint: "free disk space or fix the permissions of .notes/history",
                details: error.details, cause: .changeMade)
        }
    }

    /// A failure after the change to `path` became visible, said so.
    static func madeButFailed(_ path: String, _ error: NotesError) -> NotesError {
        NotesError(
            .internal, "the change to \(path) was made, but \(error.message)", hint: error.hint,
            details: error.details, cause: .changeMade)
    }

    static func encode(_ record: ChangeRecord) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(record)) ?? Data()) + [0x0A]
    }

    /// Every record, oldest first.
    public func records() -> [ChangeRecord] {
        lock.lock()
        defer { lock.unlock() }
        refreshCache()
        return cache.records
    }

    /// What the log says about `path`.
    public func history(of path: String) -> PathHistory {
        lock.lock()
        defer { lock.unlock() }
        refreshCache()
        return cache.paths[path] ?? PathHistory()
    }

    /// The histories of every path the log knows.
    public func allHistories() -> [String: PathHistory] {
        lock.lock()
        defer { lock.unlock() }
        refreshCache()
        return cache.paths
    }

    /// Reads what was appended to the log since the last call (or all of it, when the file
    /// was replaced).
    private func refreshCache() {
        let fd = open(logPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            cache = LogCache()
            return
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        let inode = UInt64(info.st_ino)
        if inode != cache.inode || Int(info.st_size) < cache.offset {
            cache = LogCache()
            cache.inode = inode
        }
        let size = Int(info.st_size)
        guard size > cache.offset else { return }
        var bytes = [UInt8](repeating: 0, count: size - cache.offset)
        let n = bytes.withUnsafeMutableBytes {
            pread(fd, $0.baseAddress!, $0.count, off_t(cache.offset))
        }
        guard n > 0 else { return }
        bytes.removeSubrange(n...)
        // Only whole lines; a partial last line is read again next time.
        guard let lastNewline = bytes.lastIndex(of: 0x0A) else { return }
        let decoder = JSONDecoder()
        var start = 0
        for i in 0...lastNewline where bytes[i] == 0x0A {
            if i > start,
                let record = try? decoder.decode(ChangeRecord.self, from: Data(bytes[start..<i]))
            {
                cache.records.append(record)
                apply(record)
            }
            start = i + 1
        }
        cache.offset += lastNewline + 1
    }

    private func apply(_ record: ChangeRecord) {
        if record.operation == .move, let to = record.to {
            var moved = cache.paths.removeValue(forKey: record.path) ?? PathHistory()
            moved.apply(record)
            cache.paths[to] = moved
            var source = PathHistory()
            source.records = moved.records
            source.last = record
            source.last?.after = nil
            cache.paths[record.path] = source
        } else {
            cache.paths[record.path, default: PathHistory()].apply(record)
        }
    }

    // MARK: Intent (crash recovery)

    var intentPath: String { workspace.stateDirectory + "/history/intent.json" }

    /// Notes the record of a change about to be made visible, so that a crash between the
    /// rename and the log append is completed by the next writer (``recover(currentVersion:)``).
    func writeIntent(_ record: ChangeRecord) throws(NotesError) {
        let folder = try FolderHandle.openOwn(root: workspace.root, components: Self.folder)
        do {
            try folder.replace("intent.json", with: Self.encode(record), mode: nil)
        } catch {
            throw Self.unchanged(error, "could not note the change in .notes/history")
        }
    }

    /// A failure before the change became visible, said so.
    private static func unchanged(_ error: NotesError, _ what: String) -> NotesError {
        if error.cause == .leftUnchanged { return error }
        return NotesError(
            error.code == .ioError ? .ioError : .internal,
            "\(what) (\(error.message)); nothing was changed",
            hint: "free disk space or fix the permissions of .notes/history, then retry",
            details: error.details, cause: .leftUnchanged)
    }

    func clearIntent() {
        unlink(intentPath)
    }

    /// Completes or discards a change a crashed writer left half-recorded: if the file now
    /// holds the intended version (the rename happened), the record is appended; otherwise
    /// the change never became visible and the intent is dropped. Call with the lock held.
    func recover(currentVersion: (String) -> String?) throws(NotesError) {
        guard let bytes = try? FileBytes.read(path: intentPath, maxBytes: 1 << 20),
            let record = try? JSONDecoder().decode(ChangeRecord.self, from: Data(bytes))
        else {
            if FileSystem.exists(intentPath) { clearIntent() }
            return
        }
        let happened: Bool
        switch record.operation {
        case .delete: happened = currentVersion(record.path) == nil
        case .move:
            happened =
                currentVersion(record.resultPath) == record.after
                && currentVersion(record.path) == nil
        default: happened = currentVersion(record.path) == record.after
        }
        let logged = records().last.map { $0 == record } ?? false
        if happened && !logged { try append(record) }
        clearIntent()
    }

    // MARK: Pruning

    /// Deletes stored versions that no record newer than `cutoff` (seconds since the epoch)
    /// refers to, that are no file's current version, no proposal's base, and older than
    /// the cutoff themselves. The log itself is kept whole. Returns (objects, bytes) freed.
    /// The caller holds the workspace lock (``NoteStore/pruneHistory(before:)``): a change
    /// in flight may be about to log a version whose object is old and unreferenced so far
    /// (a restore of an old version stores nothing new).
    /// With `dryRun`, counts what would go and removes nothing.
    func prune(before cutoff: Double, keep: Set<String>, dryRun: Bool = false) -> (
        objects: Int, bytes: Int
    ) {
        var referenced = keep
        for record in records() {
            if let time = Timestamp.parse(record.time), time < cutoff { continue }
            if let v = record.before { referenced.insert(v) }
            if let v = record.after { referenced.insert(v) }
        }
        for history in allHistories().values {
            if let v = history.last?.after { referenced.insert(v) }
        }
        // Recorded, so `notes index --check` knows which missing versions gc removed on purpose.
        if !dryRun, cutoff > prunedBefore,
            let folder = try? FolderHandle.open(
                root: workspace.root, components: Self.folder, create: true)
        {
            try? folder.replace("pruned-before", with: Array("\(cutoff)\n".utf8), mode: 0o644)
        }
        let objects = workspace.stateDirectory + "/history/objects"
        var removed = 0
        var freed = 0
        let manager = FileManager.default
        for prefix in (try? manager.contentsOfDirectory(atPath: objects)) ?? [] {
            for rest in (try? manager.contentsOfDirectory(atPath: objects + "/" + prefix)) ?? [] {
                let version = prefix + rest
                let path = objects + "/" + prefix + "/" + rest
                guard !referenced.contains(version), let mtime = FileSystem.modificationTime(path),
                    mtime < cutoff
                else { continue }
                var info = stat()
                if lstat(path, &info) == 0, dryRun || unlink(path) == 0 {
                    removed += 1
                    freed += Int(info.st_size)
                }
            }
        }
        return (removed, freed)
    }
}
