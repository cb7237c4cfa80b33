import CSystemCalls
import Dispatch

/// The result of walking a workspace.
public struct WorkspaceScan: Sendable {
    /// Regular files that belong to the workspace, in walk order.
    public var files: [ScannedFile] = []
    /// Sync-conflict copies (not indexed), as workspace-relative paths.
    public var conflictCopies: [String] = []
    /// Entries that look like documents but cannot be read as files (FIFOs, sockets...).
    public var skipped: [Diagnostic] = []
    /// The folders this walk listed, with their stamps for the next walk.
    public var listed: [ListedFolder] = []
    /// Stamped folders that are gone (or no longer folders): their stamps, and every stamp
    /// below them, are to be dropped.
    public var goneFolders: [String] = []
    /// Stamped folders this walk did not list because nothing was added, removed or
    /// renamed in them (their known files were stat'ed by path instead).
    public var foldersSkipped = 0
    /// Whether this walk listed every folder of the workspace (a full walk): stamps of
    /// folders it did not list are stale.
    public var listedEverything = false
    /// Whether the folders were stamped (the filesystem keeps folder times): else the
    /// stamps in `listed` are placeholders, not to be recorded.
    public var stamped = false
    /// Whether `files` are exactly the known files given to ``FileScanner/scan(knowing:trustingChangesBefore:)``,
    /// in that order, with fresh stat facts: the refresh then compares them pairwise.
    public var matchesKnownFiles = false
    /// Folders this walk could not open for want of permission (a mode-000 folder): their
    /// files are not seen. ``settleUnreadable()`` reports them.
    public var unreadableFolders: [String] = []

    /// Reports the unreadable folders as diagnostics (`notes status`, `notes list`) and
    /// leaves their parents unstamped, so every walk tries them again and says so again.
    mutating func settleUnreadable() {
        guard !unreadableFolders.isEmpty else { return }
        let parents = Set(unreadableFolders.map(FileScanner.parentPath))
        for i in listed.indices where parents.contains(listed[i].stamp.path) {
            listed[i].stamp.changeNanos = 0
        }
        skipped += unreadableFolders.sorted().map {
            Diagnostic(
                path: $0, code: .unreadable,
                message:
                    "folder cannot be read (permission denied); its files are not listed or searched"
            )
        }
        unreadableFolders = []
    }

    /// Appends `other`, keeping its listed folders' file ranges pointing at its files.
    mutating func append(_ other: WorkspaceScan) {
        let offset = files.count
        files += other.files
        conflictCopies += other.conflictCopies
        skipped += other.skipped
        listed += other.listed.map {
            var folder = $0
            folder.files = (folder.files.lowerBound + offset)..<(folder.files.upperBound + offset)
            return folder
        }
        goneFolders += other.goneFolders
        foldersSkipped += other.foldersSkipped
        unreadableFolders += other.unreadableFolders
    }
}
