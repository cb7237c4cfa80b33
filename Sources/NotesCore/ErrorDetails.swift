import Foundation

/// The data carried by a write refusal (docs/spec.md §6.2): enough for an agent to decide what to
/// do next without another call.
public struct ErrorDetails: Equatable, Sendable, Codable {
    public var path: String?
    /// The file's version now.
    public var currentVersion: String?
    /// The version the caller said it had read.
    public var expectedVersion: String?
    /// A unified diff: what changed since `expectedVersion`, or what the call would lose.
    public var diff: String?
    /// Lines of the person's text the call would remove or change.
    public var lostLines: [String]?
    /// The hunks a three-way merge could not combine.
    public var conflicts: [MergeConflict]?
    /// The ways forward an agent may take.
    public var options: [String]?
    /// For a `not_found`: where the file was moved to (from the history log).
    public var movedTo: String?
    /// For a `not_found` of a deleted file: the version `restore_file` brings back.
    public var restorableVersion: String?
    /// For a `not_found`: existing paths the caller probably meant.
    public var didYouMean: [String]?
    /// For an `io_error` (or an `internal` I/O failure): the system's error number (errno).
    public var errno: Int32?
    /// For an error of the search index: SQLite's extended result code.
    public var sqliteCode: Int32?

    public init(
        path: String? = nil, currentVersion: String? = nil, expectedVersion: String? = nil,
        diff: String? = nil,
        lostLines: [String]? = nil, conflicts: [MergeConflict]? = nil, options: [String]? = nil,
        movedTo: String? = nil, restorableVersion: String? = nil, didYouMean: [String]? = nil,
        errno: Int32? = nil, sqliteCode: Int32? = nil
    ) {
        self.errno = errno
        self.sqliteCode = sqliteCode
        self.movedTo = movedTo
        self.restorableVersion = restorableVersion
        self.didYouMean = didYouMean
        self.path = path
        self.currentVersion = currentVersion
        self.expectedVersion = expectedVersion
        self.diff = diff
        self.lostLines = lostLines
        self.conflicts = conflicts
        self.options = options
    }

    enum CodingKeys: String, CodingKey {
        case path, diff, conflicts, options
        case currentVersion = "current_version", expectedVersion = "expected_version", lostLines =
            "lost_lines"
        case movedTo = "moved_to", restorableVersion = "restorable_version", didYouMean =
            "did_you_mean"
        case errno, sqliteCode = "sqlite_code"
    }
}
