import CSystemCalls
import Dispatch

/// A folder a walk listed: its stamp, and what the listing found in it. A stamp may only be
/// kept once the index holds every one of those entries.
public struct ListedFolder: Sendable {
    public var stamp: FolderStamp
    /// The folder's own files, as a range of ``WorkspaceScan/files``.
    public var files: Range<Int>
    /// Its included sub-folders (workspace-relative paths).
    public var subfolders: [String]
}
