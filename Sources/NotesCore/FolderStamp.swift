import CSystemCalls
import Dispatch

/// What one walk saw of a folder, so that the next walk can skip listing it: a folder's
/// change time (ctime) moves whenever an entry is added to it, removed or renamed, and no
/// program can set it back. Files changed in place are caught by their own stat, which
/// every walk still does (docs/spec.md §4.3).
public struct FolderStamp: Hashable, Sendable {
    /// Workspace-relative path; "" is the workspace itself.
    public var path: String
    public var inode: UInt64
    /// The folder's ctime in nanoseconds, or 0: list it again next time (it changed too
    /// recently to trust, holds entries the index does not record such as conflict copies,
    /// or lives on a filesystem whose folder times are not trusted).
    public var changeNanos: Int64

    public init(path: String, inode: UInt64, changeNanos: Int64) {
        self.path = path
        self.inode = inode
        self.changeNanos = changeNanos
    }
}
