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
    /// index holds and replaces it (``rebuild(progress:)``). The steps: walk and read what
    /// the index knew, compare the two, then either record what an unchanged index still
    /// needs or write the changes (built aside, or as an update of the live database), and
    /// leave the layout for the next command.
    func refreshOnce(
        only paths: Set<String>?, progress: (@Sendable (RefreshProgress) -> Void)?,
        fromScratch: Bool = false
    ) throws(NotesError) -> RefreshReport {
        // A folder moved away reads as empty at its old path: never index that.
        guard workspace.isStillAtItsPath else { throw workspace.movedError }
        let started = Timestamp.now()
        var report = RefreshReport()
        let scanner = FileScanner(workspace: workspace)
        let walk = try walkAndReadKnownFiles(
            paths, scanner: scanner, fromScratch: fromScratch, started: started)
        // Freeing a large workspace's lists of files (one entry per path) is left to
        // another thread, so the search that follows the refresh does not wait for it.
        defer { Self.releaseLater((walk.loaded, walk.scan)) }
        report.recordWalk(walk.scan, fromSnapshot: walk.snapshot != nil)
        let policy = workspace.config.policy
        if paths != nil {
            // Files outside the paths looked at are unchanged by definition.
            report.files = try fileCount()
        }
        let plan = try planChanges(walk, wholeWorkspace: paths == nil, report: &report)
        report.timings.walk = Timestamp.now() - started
        if plan.workBytes > SHA256.portableBudget { SHA256.prepareForMuchHashing() }
        // A rebuild of an empty workspace empties the index (one transaction).
        if fromScratch && plan.work.isEmpty { try erase() }
        if plan.work.isEmpty && plan.gone.isEmpty {
            try keepUnchangedIndexCurrent(
                walk, wholeWorkspace: paths == nil, recordingStamps: plan.recordsStamps,
                recordingSizeLimit: plan.recordsSizeLimit, policy: policy, rules: scanner.rules)
            report.seconds = Timestamp.now() - started
            return report
        }
        let writer: IndexWriter
        let builtAside: Bool
        switch try writeChanges(
            plan, walk: walk, wholeWorkspace: paths == nil, fromScratch: fromScratch,
            rules: scanner.rules, policy: policy, racyBefore: Int64((started - 2) * 1e9),
            report: &report, progress: progress)
        {
        case .written(let used, let aside): (writer, builtAside) = (used, aside)
        // Another process built the index from the files while this one waited: a
        // rebuild too, so what is left is an ordinary refresh.
        case .builtElsewhere: return try refreshOnce(only: paths, progress: progress)
        }
        // A build aside recorded it in its own file.
        if plan.recordsSizeLimit && !builtAside { try recordSizeLimit() }
        if !writer.counts.removals.isEmpty { ledger?.noteRemovals(writer.counts.removals) }
        if !builtAside && paths == nil && !fromScratch && !plan.recordsStamps {
            leaveLayoutAfterRestats(writer, walk: walk, rules: scanner.rules)
        } else if walk.snapshot != nil {
            // Files were added, removed or moved: the next command reads the rows (and writes
            // the new layout).
            LayoutSnapshot.remove(in: directory)
        }
        report.recordWrites(writer)
        report.files =
            paths == nil ? walk.scan.files.count - writer.counts.vanished : try fileCount()
        report.seconds = Timestamp.now() - started
        return report
    }

    /// What a refresh compares: the walk, what the index knew before it, and the layout
    /// snapshot that knowledge came from (nil when it came from the database).
    struct RefreshWalk {
        var scan: WorkspaceScan
        var loaded: KnownFiles
        var snapshot: LayoutSnapshot?
    }

    /// What a refresh must write: the files to read, the known files gone, whether the
    /// folders' stamps are to be recorded after the files.
    struct RefreshPlan {
        var work: [PendingFile]
        var gone: [String: KnownFile]
        var recordsStamps: Bool
        /// The bytes of the files to read.
        var workBytes: Int
        /// Whether the size limit the files were read under is to be recorded
        /// (``IndexedSizeLimit``).
        var recordsSizeLimit: Bool
        /// Whether the refresh is written in bulk mode (``NoteIndex/bulkFiles``).
        var bulk: Bool { work.count >= NoteIndex.bulkFiles || workBytes >= NoteIndex.bulkBytes }
    }

    /// How ``writeChanges`` ended.
    enum WrittenChanges {
        /// By `writer`, into a file built aside (``buildFresh``) or the live database.
        case written(IndexWriter, builtAside: Bool)
        /// Another process built the index while this one waited for it.
        case builtElsewhere
    }
    /// Walks `paths` (nil: the whole workspace) and reads what the index knew about them:
    /// nothing for a rebuild or a database not created yet; else the known files from the
    /// layout snapshot when it is current, or from the database, their stats started while
    /// the rest are read, so a folder whose stamp has not moved is not listed again.
    private func walkAndReadKnownFiles(
        _ paths: Set<String>?, scanner: FileScanner, fromScratch: Bool, started: Double
    ) throws(NotesError) -> RefreshWalk {
        // Folders changed after this instant are listed again next time (``FolderStamp``).
        let trustBefore = Int64((started - folderTrustDelay.withLock { $0 }) * 1e9)
        if fromScratch || (paths == nil && !isPoolOpen && !FileSystem.exists(databasePath)) {
            // A rebuild, or no database yet (nothing known; not created just to be read: an
            // empty workspace's refresh still writes the policy's name, as on a new database).
            return RefreshWalk(
                scan: scanner.scan(trustingChangesBefore: trustBefore),
                loaded: KnownFiles(
                    files: [], folders: nil, hasDigests: true, hiddenFlagsCurrent: fromScratch))
        }
        if let paths {
            let loaded = try knownFiles(paths, stampRules: scanner.rules)
            return RefreshWalk(scan: scanner.scan(paths: paths), loaded: loaded)
        }
        if let (loaded, snapshot, prefetch) = try knownFromSnapshot() {
            // The stats began when the index was opened (``LayoutSnapshot``).
            let scan = scanner.scan(
                knowing: KnownLayout(
                    folders: loaded.folders ?? [], files: loaded.files.map(\.path)),
                trustingChangesBefore: trustBefore, prefetched: prefetch)
            return RefreshWalk(scan: scan, loaded: loaded, snapshot: snapshot)
        }
        // The known folders and files are stat'ed while the rest are still being read.
        let prefetch = scanner.skipsUnchangedFolders ? StatPrefetch(root: workspace.root) : nil
        let loaded = try knownFiles(nil, stampRules: scanner.rules, prefetch: prefetch)
        guard let folders = loaded.folders else {
            return RefreshWalk(
                scan: scanner.scan(trustingChangesBefore: trustBefore), loaded: loaded)
        }
        let scan = scanner.scan(
            knowing: KnownLayout(folders: folders, files: loaded.files.map(\.path)),
            trustingChangesBefore: trustBefore, prefetched: prefetch)
        return RefreshWalk(scan: scan, loaded: loaded)
    }

    /// Compares the walk with the known files: the files to read (new, or whose stat
    /// changed) and the known files no longer on disk; counts the unchanged in `report`.
    static func changedFiles(
        _ scan: WorkspaceScan, knowing loaded: KnownFiles, report: inout RefreshReport
    ) -> (work: [PendingFile], gone: [String: KnownFile]) {
        var work: [PendingFile] = []
        if scan.matchesKnownFiles {
            // Every folder was unchanged: the walk stat'ed exactly the known files, in order.
            for (file, old) in zip(scan.files, loaded.files) {
                if old.isUnchanged(file) {
                    report.unchanged += 1
                } else {
                    work.append(PendingFile(file: file, known: old))
                }
            }
            return (work, [:])
        }
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
        if found == known.count { return (work, [:]) }
        let onDisk = Set(scan.files.map(\.path))
        return (work, known.filter { !onDisk.contains($0.key) })
    }

    /// With no file to write: leaves the layout just read for the next command when it is
    /// the database's, and writes what the index still needs: the files' hidden flags under
    /// `policy` when they were set under another, and the folder stamps when they moved.
    private func keepUnchangedIndexCurrent(
        _ walk: RefreshWalk, wholeWorkspace: Bool, recordingStamps stampsToRecord: Bool,
        recordingSizeLimit sizeLimitToRecord: Bool, policy: PathPolicy, rules: IgnoreRules
    ) throws(NotesError) {
        let hiddenFlagsCurrent = walk.loaded.hiddenFlagsCurrent
        if hiddenFlagsCurrent && !stampsToRecord && wholeWorkspace && !walk.loaded.fromSnapshot,
            let token = walk.loaded.layoutToken
        {
            // Nothing to write: the layout just read is the database's, for the next command.
            LayoutSnapshot.write(
                walk.loaded, token: token, fingerprint: FolderStamps.fingerprint(rules),
                directory: directory)
        }
        guard !hiddenFlagsCurrent || stampsToRecord || sizeLimitToRecord else { return }
        do {
            try pool.write { db in
                if sizeLimitToRecord {
                    try IndexedSizeLimit.record(workspace.config.indexMaxBytes, db)
                }
                // The policy changed (or another process's was in force): flag the
                // files for this one, so agent searches need not ask the policy per file.
                if !hiddenFlagsCurrent { try HiddenFiles.adopt(policy, db) }
                if stampsToRecord {
                    try FolderStamps.record(walk.scan, rules: rules, checking: true, db)
                }
            }
        } catch {
            throw wrap(error)
        }
        // The stamps changed the layout: no snapshot to read first next time.
        if stampsToRecord && walk.snapshot != nil { LayoutSnapshot.remove(in: directory) }
    }

    /// Compares the walk with what the index knew (digests read when the known files came
    /// without them) and decides whether the folders' stamps need recording.
    private func planChanges(
        _ walk: RefreshWalk, wholeWorkspace: Bool, report: inout RefreshReport
    ) throws(NotesError) -> RefreshPlan {
        var (work, gone) = Self.changedFiles(walk.scan, knowing: walk.loaded, report: &report)
        let sizeLimit = workspace.config.indexMaxBytes
        if wholeWorkspace,
            let crossed = IndexedSizeLimit.sizesCrossed(from: walk.loaded.sizeLimit, to: sizeLimit)
        {
            Self.addCrossingSizeLimit(crossed, walk, to: &work, report: &report)
        }
        if !walk.loaded.hasDigests, !work.isEmpty || !gone.isEmpty {
            (work, gone) = try withDigests(work, gone)
        }
        // Stamps to write once the files are (a fresh build writes them into its own file).
        let recordsStamps =
            wholeWorkspace && FolderStamps.needsRecording(walk.scan, known: walk.loaded.folders)
        return RefreshPlan(
            work: work, gone: gone, recordsStamps: recordsStamps,
            workBytes: work.reduce(0) { $0 + $1.file.size },
            recordsSizeLimit: wholeWorkspace && walk.loaded.sizeLimit != sizeLimit)
    }

    /// Adds to `work` the known files the walk found unchanged whose size is in `crossed`
    /// (indexed under the old size limit and too large under the new one, or the reverse),
    /// marked as read for the limit. A file in `work` already changed on disk: reading it is
    /// an outside edit as any other.
    private static func addCrossingSizeLimit(
        _ crossed: ClosedRange<Int>, _ walk: RefreshWalk, to work: inout [PendingFile],
        report: inout RefreshReport
    ) {
        let queued = Set(work.map(\.file.path))
        let known = walk.loaded.byPath
        for file in walk.scan.files where crossed.contains(file.size) {
            guard !queued.contains(file.path), let old = known[file.path] else { continue }
            work.append(PendingFile(file: file, known: old, sizeLimitChanged: true))
            report.unchanged -= 1
        }
    }

    /// Writes `plan`: built aside into a private file for a first build of the whole
    /// workspace that is large, and for every rebuild; else as an update of the live
    /// database, the folder stamps recorded after the files.
    private func writeChanges(
        _ plan: RefreshPlan, walk: RefreshWalk, wholeWorkspace: Bool, fromScratch: Bool,
        rules: IgnoreRules, policy: PathPolicy, racyBefore: Int64, report: inout RefreshReport,
        progress: (@Sendable (RefreshProgress) -> Void)?
    ) throws(NotesError) -> WrittenChanges {
        // A rebuild is always built aside, whatever its size: emptying the live index and
        // refilling it showed other processes' searches an empty or partial index.
        if wholeWorkspace && walk.loaded.files.isEmpty && (plan.bulk || fromScratch) {
            switch try buildFresh(
                plan.work, replacing: fromScratch, stamps: walk.scan, rules: rules,
                racyBefore: racyBefore, report: &report, progress: progress)
            {
            case .built(let built): return .written(built, builtAside: true)
            case .declined: if fromScratch { try erase() }
            case .builtElsewhere: return .builtElsewhere
            }
        }
        let update = IndexWriter.Update(
            gone: plan.gone, bulk: plan.bulk,
            layoutToken: wholeWorkspace ? walk.loaded.layoutToken : nil,
            hiddenFlagsCurrent: walk.loaded.hiddenFlagsCurrent)
        let writer = IndexWriter(
            pool: try pool, mode: .update(update), racyBefore: racyBefore, policy: policy)
        report.outsideEdits = index(plan.work, with: writer, report: &report, progress: progress)
        writer.finish()
        if let failure = writer.failure { throw wrap(failure) }
        if plan.recordsStamps { try recordFolderStamps(walk.scan, rules: rules) }
        return .written(writer, builtAside: false)
    }
    /// Records the size limit this refresh read the files under (``IndexedSizeLimit``).
    private func recordSizeLimit() throws(NotesError) {
        do {
            try pool.write { db in try IndexedSizeLimit.record(workspace.config.indexMaxBytes, db) }
        } catch {
            throw wrap(error)
        }
    }

    /// Records the folders' stamps from `scan` after its files were written.
    private func recordFolderStamps(_ scan: WorkspaceScan, rules: IgnoreRules) throws(NotesError) {
        do {
            try pool.write { db in
                try FolderStamps.record(scan, rules: rules, checking: true, db)
            }
        } catch {
            throw wrap(error)
        }
    }

    /// After an update of the whole workspace: when it only rewrote known files' stat facts
    /// in place (an edit, a touch) and no other writer came between, the layout is the known
    /// files with those facts, and the next command stats from it (an agent that writes,
    /// then searches). When it changed nothing (a file too recent to trust, looked at
    /// again), the snapshot read still stands. Otherwise the snapshot is dropped.
    private func leaveLayoutAfterRestats(_ used: IndexWriter, walk: RefreshWalk, rules: IgnoreRules)
    {
        guard let token = used.layoutTokenAfterRestats else {
            // Files were added, removed or moved: the next command reads the rows (and writes
            // the new layout).
            if walk.snapshot != nil { LayoutSnapshot.remove(in: directory) }
            return
        }
        let updated = walk.snapshot.map {
            used.restatted.isEmpty
                || $0.update(restatted: used.restatted, token: token, directory: directory)
        }
        if updated != true {
            LayoutSnapshot.write(
                walk.loaded, restatted: used.restatted, token: token,
                fingerprint: FolderStamps.fingerprint(rules), directory: directory)
        }
    }

    /// Drops `value` on another thread (its deallocation off the caller's path).
    static func releaseLater<Value: Sendable>(_ value: Value) {
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(value) {} }
    }

    /// Reads, hashes and parses `work` in bounded batches on every core (``BackgroundParsers``,
    /// below the writer's priority) while `writer` applies the previous batch. Each batch's
    /// outside edits (known files whose bytes changed without notes) go to the ledger, which
    /// answers with the provenance its rows are written with (``ChangeLedger``); returns them
    /// all. The caller finishes the writer. `afterEachBatch` runs on the writer's queue after
    /// each batch is written.
    func index(
        _ work: [PendingFile], with writer: IndexWriter, report: inout RefreshReport,
        progress: (@Sendable (RefreshProgress) -> Void)?,
        afterEachBatch: (@Sendable () -> Void)? = nil
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
                    if let known = item.pending.known, !item.pending.sizeLimitChanged,
                        !digest.isEmpty, digest != known.digest
                    {
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
                afterEachBatch?()
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
