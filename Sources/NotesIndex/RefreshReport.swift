import NotesCore

/// What one refresh of the index did (`notes index` prints it; docs/spec.md §4.3).
public struct RefreshReport: Sendable, Codable {
    /// A file that moved: same bytes, new path.
    public struct Rename: Sendable, Codable, Hashable {
        public var from: String
        public var to: String

        public init(from: String, to: String) {
            self.from = from
            self.to = to
        }
    }

    public var added = 0
    public var modified = 0
    public var removed = 0
    public var renames: [Rename] = []
    /// Files whose stat changed but whose bytes did not (a `touch`, a formatter no-op).
    public var touched = 0
    public var unchanged = 0
    /// Files in the workspace after the refresh.
    public var files = 0
    /// Bytes read and parsed in this refresh.
    public var bytesParsed = 0
    public var seconds = 0.0
    /// Where the time went (for `notes index --json` and the benchmarks).
    public var timings = Timings()
    /// Problems found in the files parsed by this refresh (and special files met by the walk).
    public var diagnostics: [Diagnostic] = []
    /// Sync-conflict copies seen by the walk (not indexed).
    public var conflictCopies: [String] = []
    /// Folders the walk listed, and stamped folders it did not need to list (nothing
    /// added, removed or renamed in them); not in the JSON, for tests.
    var foldersListed = 0
    var foldersSkipped = 0
    /// FTS column texts the writer inserted from tokens recorded on the parsing threads
    /// (``TokenReplay``); not in the JSON, for tests.
    var replayedTexts = 0
    /// Known files whose bytes changed without notes, as this refresh found them (handed to
    /// the ``ChangeLedger`` batch by batch); not in the JSON.
    public var outsideEdits: [OutsideEdit] = []
    /// Whether the known files came from the layout snapshot (``LayoutSnapshot``), not
    /// from the database; not in the JSON, for tests.
    var layoutFromSnapshot = false

    /// Seconds per refresh phase. Parsing runs on every core, so its figure is the sum of
    /// the threads' time and can exceed the wall clock.
    public struct Timings: Sendable, Codable {
        /// The stat walk and the comparison with the index.
        public var walk = 0.0
        /// Reading, hashing and parsing files, summed over threads.
        public var parse = 0.0
        /// Time the single writer spent in transactions.
        public var write = 0.0

        public init() {}
    }

    public init() {}

    /// Whether the index changed.
    public var changedAnything: Bool { added + modified + removed + renames.count + touched > 0 }

    enum CodingKeys: String, CodingKey {
        case added, modified, removed, renames, touched, unchanged, files
        case bytesParsed = "bytes_parsed", seconds, timings, diagnostics
        case conflictCopies = "conflict_copies"
    }
}

extension RefreshReport {
    /// Takes what the walk saw: the files, the folders listed and skipped, the sync-conflict
    /// copies and special files met; `fromSnapshot` when the known files came from the
    /// layout snapshot.
    mutating func recordWalk(_ scan: WorkspaceScan, fromSnapshot: Bool) {
        conflictCopies = scan.conflictCopies
        diagnostics = scan.skipped
        files = scan.files.count
        foldersListed = scan.listed.count
        foldersSkipped = scan.foldersSkipped
        layoutFromSnapshot = fromSnapshot
    }

    /// Takes what `writer` wrote: its counts, its diagnostics and its time.
    mutating func recordWrites(_ writer: IndexWriter) {
        added = writer.counts.added
        modified = writer.counts.modified
        touched = writer.counts.touched
        removed = writer.counts.removed
        renames = writer.counts.renames
        bytesParsed = writer.counts.bytesParsed
        replayedTexts = writer.counts.replayedTexts
        diagnostics += writer.counts.diagnostics
        timings.write += writer.seconds
    }
}
