import NotesCore

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
