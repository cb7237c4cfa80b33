import CSystemCalls
import Dispatch

/// One regular file found by the walk, with the stat facts used for change detection.
public struct ScannedFile: Hashable, Sendable {
    /// Workspace-relative path with `/` separators.
    public var path: String
    public var size: Int
    /// Modification time in nanoseconds since the epoch.
    public var mtimeNanos: Int64
    public var inode: UInt64

    public init(path: String, size: Int, mtimeNanos: Int64, inode: UInt64) {
        self.path = path
        self.size = size
        self.mtimeNanos = mtimeNanos
        self.inode = inode
    }
}
