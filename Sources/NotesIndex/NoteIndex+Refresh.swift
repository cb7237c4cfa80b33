import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import NotesCore
import NotesDocuments

extension NoteIndex {
    /// Brings the index up to date with the files (docs/spec.md §4.3).
    ///
    /// The pipeline, in order:
    /// 1. **walk**: a stat walk of the workspace (``FileScanner``);
    /// 2. **diff**: files whose size, mtime or inode differ from the index, new files and
    ///    deleted files;
    /// 3. **read + parse**: only those files, in parallel on every core, in bounded batches;
    ///    bytes identical to the indexed digest are a `touch` (no parse);
    /// 4. **write**: one writer applies each batch in an immediate transaction while the next
    ///    batch is parsed; a new file with the digest of a deleted one is a rename.
    ///
    /// A refresh killed half-way leaves a consistent index (each batch commits whole) and the
    /// next refresh finishes the job.
    public func refresh(progress: (@Sendable (RefreshProgress) -> Void)? = nil) throws(NotesError)
        -> RefreshReport
    {
        try refresh(only: nil, progress: progress)
    }

    /// Brings the index up to date for `paths` only (workspace-relative files or folders, as
    /// a file watcher reports them): each is stat'ed or walked, and compared with what the
    /// index holds at that path or below it. `nil` means the whole workspace.
    public func refresh(
        only paths: Set<String>?, progress: (@Sendable (RefreshProgress) -> Void)? = nil
    ) throws(NotesError) -> RefreshReport {
        try recoveringFromDamage { () throws(NotesError) -> RefreshReport in
            try refreshOnce(only: paths, progress: progress)
        }
    }

    /// Builds the index again from the files (`notes index --rebuild`), forgetting what it
    /// held. When no other process has the index open, a large workspace is built into a
    /// private file that replaces the old one (``buildFresh``): the old rows are never
    /// deleted one by one, which cost more than the build itself (FTS5 tokenizes each deleted
    /// row again to take its terms out). When other processes have it open, the new file is
    /// copied into the live database in one transaction, so they never see an emptied index.
    ///
    /// Then an ordinary refresh reads again the files saved while the rebuild ran: another
    /// process (a watcher) may have indexed such an edit before the copy brought back the
    /// text the rebuild had read, and would not look at that file again. The report is the
    /// rebuild's.
    public func rebuild(progress: (@Sendable (RefreshProgress) -> Void)? = nil) throws(NotesError)
        -> RefreshReport
    {
        try recoveringFromDamage { () throws(NotesError) -> RefreshReport in
            let report = try refreshOnce(only: nil, progress: progress, fromScratch: true)
            _ = try refreshOnce(only: nil, progress: nil)
            return report
        }
    }

    /// One refresh of `paths` (nil: the whole workspace); `fromScratch` ignores what the
    /// index holds and replaces it (``rebuild(progress:)``).
    func refreshOnce(
        only paths: Set<String>?, progress: (@Sendable (RefreshProgress) -> Void)?,
        fromScratch: Bool = false
    ) throws(NotesError) -> RefreshReport {
        // A folder moved away reads as empty at its old path: never index that.
        guard workspace.isStillAtItsPath else { throw workspace.movedError }
        let started = Timestamp.now()
        var report = RefreshReport()
        let scanner = FileScanner(workspace: workspace)
        let scan: WorkspaceScan
        let loaded: KnownFiles
        var usedSnapshot: LayoutSnapshot?
        // Folders changed after this instant are listed again next time (``FolderStamp``).
        let trustBefore = Int64((started - folderTrustDelay.withLock { $0 }) * 1e9)
        if fromScratch || (paths == nil && !isPoolOpen && !FileSystem.exists(databasePath)) {
            // A rebuild, or no database yet (nothing known; not created just to be read: an
            // empty workspace's refresh still writes the policy's name, as on a new database).
            scan = scanner.scan(trustingChangesBefore: trustBefore)
            loaded = KnownFiles(
                files: [], folders: nil, hasDigests: true, hiddenFlagsCurrent: fromScratch)
        } else if let paths {
            scan = scanner.scan(paths: paths)
            loaded = try knownFiles(paths, stampRules: scanner.rules)
        } else if let (snapshotted, snapshot, prefetch) = try knownFromSnapshot() {
            // The stats began when the index was opened (``LayoutSnapshot``).
            loaded = snapshotted
            usedSnapshot = snapshot
            report.layoutFromSnapshot = true
            scan = scanner.scan(
                knowing: KnownLayout(
                    folders: loaded.folders ?? [], files: loaded.files.map(\.path)),
                trustingChangesBefore: trustBefore, prefetched: prefetch)
        } else {
            // The known folders and files are stat'ed while the rest are still being read.
            let prefetch = scanner.skipsUnchangedFolders ? StatPrefetch(root: workspace.root) : nil
            loaded = try knownFiles(nil, stampRules: scanner.rules, prefetch: prefetch)
            if let folders = loaded.folders {
                scan = scanner.scan(
                    knowing: KnownLayout(folders: folders, files: loaded.files.map(\.path)),
                    trustingChangesBefore: trustBefore, prefetched: prefetch)
            } else {
                scan = scanner.scan(trustingChangesBefore: trustBefore)
            }
        }
        // Freeing a large workspace's lists of files (one entry per path) is left to
        // another thread, so the search that follows the refresh does not wait for it.
        defer { Self.releaseLater((loaded, scan)) }
        report.conflictCopies = scan.conflictCopies
        report.diagnostics = scan.skipped
        report.files = scan.files.count
        report.foldersListed = scan.listed.count
        report.foldersSkipped = scan.foldersSkipped
        let policy = workspace.config.policy
        let hiddenFlagsCurrent = loaded.hiddenFlagsCurrent
        if paths != nil {
            // Files outside the paths looked at are unchanged by definition.
            report.files = try fileCount()
        }

        let wasEmpty = loaded.files.isEmpty
        var work: [PendingFile] = []
        var gone: [String: KnownFile]
        if scan.matchesKnownFiles {
            // Every folder was unchanged: the walk stat'ed exactly the known files, in order.
            for (file, old) in zip(scan.files, loaded.files) {
                if old.isUnchanged(file) {
                    report.unchanged += 1
                } else {
                    work.append(PendingFile(file: file, known: old))
                }
            }
            gone = [:]
        } else {
            let known = loaded.byPath
            // Lookups only (removing each found entry was a tenth of a no-change refresh): the
            // walk yields each path once, so when every known file was found none is gone.
            var found = 0
            for file in scan.files {
                if let old = known[file.path] {
                    found += 1
                    if old.isUnchanged(file) {
                        report.unchanged += 1
                        continue
                    }
                    work.append(PendingFile(file: file, known: old))
                } else {
                    work.append(PendingFile(file: file, known: nil))
                }
            }
            if found == known.count {
                gone = [:]
            } else {
                let onDisk = Set(scan.files.map(\.path))
                gone = known.filter { !onDisk.contains($0.key) }
            }
        }
        if !loaded.hasDigests, !work.isEmpty || !gone.isEmpty {
            (work, gone) = try withDigests(work, gone)
        }
        // Stamps to write once the files are (a fresh build writes them into its own file).
        let stampsToRecord =
            paths == nil && FolderStamps.needsRecording(scan, known: loaded.folders)
        report.timings.walk = Timestamp.now() - started
        let workBytes = work.reduce(0) { $0 + $1.file.size }
        if workBytes > SHA256.portableBudget { SHA256.prepareForMuchHashing() }
        let bulk = work.count >= Self.bulkFiles || workBytes >= Self.bulkBytes
        // A rebuild of an empty workspace empties the index (one transaction).
        if fromScratch && work.isEmpty { try erase() }
        if work.isEmpty && gone.isEmpty {
            if hiddenFlagsCurrent && !stampsToRecord && paths == nil && !loaded.fromSnapshot,
                let token = loaded.layoutToken
            {
                // Nothing to write: the layout just read is the database's, for the next command.
                LayoutSnapshot.write(
                    loaded, token: token, fingerprint: FolderStamps.fingerprint(scanner.rules),
                    directory: directory)
            }
            if !hiddenFlagsCurrent || stampsToRecord {
                do {
                    try pool.write { db in
                        // The policy changed (or another process's was in force): flag the
                        // files for this one, so agent searches need not ask the policy per file.
                        if !hiddenFlagsCurrent { try HiddenFiles.adopt(policy, db) }
                        if stampsToRecord {
                            try FolderStamps.record(scan, rules: scanner.rules, checking: true, db)
                        }
                    }
                } catch {
                    throw wrap(error)
                }
                // The stamps changed the layout: no snapshot to read first next time.
                if stampsToRecord && usedSnapshot != nil { LayoutSnapshot.remove(in: directory) }
            }
            report.seconds = Timestamp.now() - started
            return report
        }

        let racyBefore = Int64((started - 2) * 1e9)
        var writer: IndexWriter?
        // A rebuild is always built aside, whatever its size: emptying the live index and
        // refilling it showed other processes' searches an empty or partial index.
        if paths == nil && wasEmpty && (bulk || fromScratch) {
            switch try buildFresh(
                work, replacing: fromScratch, stamps: scan, rules: scanner.rules,
                racyBefore: racyBefore, report: &report, progress: progress)
            {
            case .built(let built): writer = built
            case .declined: if fromScratch { try erase() }
            // Another process built the index from the files while this one waited: a
            // rebuild too, so what is left is an ordinary refresh.
            case .builtElsewhere: return try refreshOnce(only: paths, progress: progress)
            }
        }
        let used: IndexWriter
        if let writer {
            used = writer
        } else {
            let update = IndexWriter.Update(
                gone: gone, bulk: bulk, layoutToken: paths == nil ? loaded.layoutToken : nil,
                hiddenFlagsCurrent: hiddenFlagsCurrent)
            used = IndexWriter(
                pool: try pool, mode: .update(update), racyBefore: racyBefore, policy: policy)
            report.outsideEdits = index(work, with: used, report: &report, progress: progress)
            used.finish()
            if let failure = used.failure { throw wrap(failure) }
            if stampsToRecord {
                do {
                    try pool.write { db in
                        try FolderStamps.record(scan, rules: scanner.rules, checking: true, db)
                    }
                } catch {
                    throw wrap(error)
                }
            }
        }
        // When this refresh only rewrote known files' stat facts in place (an edit, a touch)
        // and no other writer came between, the layout is the known files with those facts:
        // the next command stats from it (an agent that writes, then searches). When it
        // changed nothing (a file too recent to trust, looked at again), the layout read
        // still stands.
        if writer == nil && paths == nil && !fromScratch && !stampsToRecord,
            let token = used.layoutTokenAfterRestats
        {
            if usedSnapshot.map({
                used.restatted.isEmpty
                    || $0.update(restatted: used.restatted, token: token, directory: directory)
            }) != true {
                LayoutSnapshot.write(
                    loaded, restatted: used.restatted, token: token,
                    fingerprint: FolderStamps.fingerprint(scanner.rules), directory: directory)
            }
        } else if usedSnapshot != nil {
            // Files were added, removed or moved: the next command reads the rows (and writes
            // the new layout).
            LayoutSnapshot.remove(in: directory)
        }

        report.added = used.counts.added
        report.modified = used.counts.modified
        report.touched = used.counts.touched
        report.removed = used.counts.removed
        report.renames = used.counts.renames
        report.bytesParsed = used.counts.bytesParsed
        report.replayedTexts = used.counts.replayedTexts
        report.diagnostics += used.counts.diagnostics
        report.files = paths == nil ? scan.files.count - used.counts.vanished : try fileCount()
        report.timings.write += used.seconds
        report.seconds = Timestamp.now() - started
        return report
    }

    /// Drops `value` on another thread (its deallocation off the caller's path).
    static func releaseLater<Value: Sendable>(_ value: Value) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
    }

    /// Reads, hashes and parses `work` in bounded batches on every core (``BackgroundParsers``,
    /// below the writer's priority) while `writer` applies the previous batch. Each batch's
    /// outside edits (known files whose bytes changed without notes) go to the ledger, which
    /// answers with the provenance its rows are written with (``ChangeLedger``); returns them
    /// all. The caller finishes the writer.
    func index(
        _ work: [PendingFile], with writer: IndexWriter, report: inout RefreshReport,
        progress: (@Sendable (RefreshProgress) -> Void)?
    ) -> [OutsideEdit] {
        var outsideEdits: [OutsideEdit] = []
        let limits = (
            maxBytes: workspace.config.indexMaxBytes, root: workspace.root,
            policy: workspace.config.policy
        )
        let inFlight = DispatchSemaphore(value: 2)
        let writeQueue = DispatchQueue(label: "notes.index.writer")
        let unsettled: any ProvenanceLookup = StatedProvenance()
        var done = 0
        var bytes = 0
        for range in Self.batches(sizes: work.map(\.file.size)) {
            let batch = Array(work[range])
            let batchBytes = batch.reduce(0) { $0 + $1.file.size }
            let results = ParallelSlots<ProcessedFile>(count: batch.count)
            BackgroundParsers.perform(iterations: batch.count) { i in
                let began = Timestamp.now()
                var processed = Self.process(batch[i], root: limits.root, maxBytes: limits.maxBytes)
                processed.hidden = HiddenFiles.hides(limits.policy, batch[i].file.path)
                results.set(i, processed, adding: Timestamp.now() - began)
            }
            report.timings.parse += results.total
            done += batch.count
            bytes += batchBytes
            progress?(RefreshProgress(done: done, total: work.count, bytes: bytes))
            inFlight.wait()
            let items = results.values
            var edits: [OutsideEdit] = []
            var writesProvenance = false
            for item in items {
                switch item.outcome {
                case .parsed(let digest, _, _, _), .listedOnly(let digest, _):
                    writesProvenance = true
                    if let known = item.pending.known, !digest.isEmpty, digest != known.digest {
                        let file = item.pending.file
                        edits.append(
                            OutsideEdit(
                                path: file.path, before: known.digest.isEmpty ? nil : known.digest,
                                version: String(digest.prefix(16)),
                                mtime: Double(file.mtimeNanos) / 1e9))
                    }
                default: break
                }
            }
            outsideEdits += edits
            // Settled after the batch was read: the history then holds every change notes
            // made to the bytes read (a batch of touches writes no provenance).
            let provenance =
                writesProvenance ? (ledger ?? StatedProvenance()).settle(edits) : unsettled
            writeQueue.async {
                writer.write(items, provenance: provenance)
                inFlight.signal()
            }
        }
        writeQueue.sync {}
        return outsideEdits
    }

    /// Splits files (by size) into parse batches, in order. A batch is parsed on every core
    /// while the writer writes the one before, so: the first batch is small (the writer
    /// starts early), and each later one takes at most a quarter of what remains (the last
    /// batches are small too, so little writing is left once parsing ends) and at most 512
    /// files or 8 MB (memory: two batches are in flight). A file over the byte limit is a
    /// batch of its own.
    static func batches(sizes: [Int]) -> [Range<Int>] {
        let totalBytes = sizes.reduce(0, +)
        var ranges: [Range<Int>] = []
        var start = 0
        var doneBytes = 0
        while start < sizes.count {
            let remainingFiles = sizes.count - start
            let remainingBytes = totalBytes - doneBytes
            let (fileLimit, byteLimit) =
                start == 0
                ? (64, 1 << 20)
                : (
                    max(16, min(512, remainingFiles / 4)),
                    max(256 << 10, min(8 << 20, remainingBytes / 4))
                )
            var end = start
            var bytes = 0
            while end < sizes.count && end - start < fileLimit
                && (end == start || bytes + sizes[end] <= byteLimit)
            {
                bytes += sizes[end]
                end += 1
            }
            ranges.append(start..<end)
            doneBytes += bytes
            start = end
        }
        return ranges
    }

    private func fileCount() throws(NotesError) -> Int {
        do {
            return try pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM files") ?? 0
            }
        } catch {
            throw wrap(error)
        }
    }

    /// A refresh with this much to read is written in bulk mode (see ``IndexWriter``).
    static let bulkFiles = 500
    static let bulkBytes = 16 << 20

    /// Reads, hashes and (unless only touched) parses one file. Runs on any thread.
    static func process(_ pending: PendingFile, root: String, maxBytes: Int) -> ProcessedFile {
        let path = pending.file.path
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(
                path: root + "/" + path, maxBytes: maxBytes, checkingLocation: true)
        } catch {
            switch error {
            case .tooLarge(let size):
                return ProcessedFile(
                    pending: pending,
                    outcome: .listedOnly(
                        digest: "",
                        diagnostics: [
                            Diagnostic(
                                path: path, code: .tooLarge,
                                message:
                                    "file is \(size / 1_048_576) MB, over the index limit of \(maxBytes / 1_048_576) MB; listed but not indexed"
                            )
                        ]))
            case .notFound, .notRegularFile:
                return ProcessedFile(pending: pending, outcome: .vanished)
            case .unreadable(let code):
                return ProcessedFile(
                    pending: pending,
                    outcome: .listedOnly(
                        digest: "",
                        diagnostics: [
                            Diagnostic(
                                path: path, code: .unreadable,
                                message: "cannot read file: \(String(cString: strerror(code)))")
                        ]))
            }
        }
        let version = ContentVersion(of: bytes)
        if let known = pending.known, known.digest == version.digest {
            return ProcessedFile(pending: pending, outcome: .touched)
        }
        let (document, diagnostics) = DocumentParser.parse(path: path, bytes: bytes)
        guard let document else {
            return ProcessedFile(
                pending: pending,
                outcome: .listedOnly(digest: version.digest, diagnostics: diagnostics))
        }
        return ProcessedFile(
            pending: pending,
            outcome: .parsed(
                digest: version.digest, document: document, bytes: bytes.count,
                text: SearchableText(document)))
    }
}

/// What the index knew before this refresh: its `files` rows, as a refresh compares them
/// with the walk, and the folders' stamps (nil when there are none valid).
struct KnownFiles: Sendable {
    var files: [KnownFile]
    var folders: [FolderStamp]?
    /// Whether `files` carry their digests (else ``NoteIndex/withDigests(_:_:)`` reads them).
    var hasDigests: Bool
    var hiddenFlagsCurrent: Bool
    /// The database's layout token when these were read (``LayoutSnapshot``).
    var layoutToken: String?
    /// Whether these came from the layout snapshot rather than the database.
    var fromSnapshot = false

    /// The files by path (a path has one row at most).
    var byPath: [String: KnownFile] {
        Dictionary(files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

/// What the index knew about a file before this refresh.
struct KnownFile: Sendable {
    var id: Int64
    var path: String
    var size: Int
    var mtimeNanos: Int64
    var inode: UInt64
    var digest: String

    /// Whether the walk's stat of `file` says it is as indexed: same size, mtime and inode
    /// (a row written with mtime 0, racy when indexed, is always looked at again).
    func isUnchanged(_ file: ScannedFile) -> Bool {
        size == file.size && mtimeNanos == file.mtimeNanos && inode == file.inode && mtimeNanos != 0
    }
}

/// A file the walk says must be looked at.
struct PendingFile: Sendable {
    var file: ScannedFile
    var known: KnownFile?
}

/// The result of reading one pending file.
struct ProcessedFile: Sendable {
    enum Outcome: Sendable {
        case touched
        case parsed(digest: String, document: ParsedDocument, bytes: Int, text: SearchableText)
        case listedOnly(digest: String, diagnostics: [Diagnostic])
        case vanished
    }

    var pending: PendingFile
    var outcome: Outcome
    /// Whether the agent's policy hides the file (``HiddenFiles``), decided on the parse
    /// thread rather than by the writer.
    var hidden = false
}
