import CSystemCalls
import Dispatch

/// When a listed folder's ctime may be kept as its stamp (see ``FolderStamp``).
struct StampRules: Sendable {
    /// The workspace's device: a folder on another filesystem mounted inside is always listed.
    let device: UInt64
    /// Folders changed at or after this instant (ns since the epoch) are stamped 0: another
    /// change within the filesystem's timestamp granularity would leave the same ctime.
    let trustBefore: Int64
    /// Whether the filesystem keeps folder ctimes as Linux's local filesystems do.
    let trusted: Bool

    /// No stamps at all (a scan for a few paths, or an untrusted filesystem).
    static let none = StampRules(device: 0, trustBefore: 0, trusted: false)

    /// The stamp to record for a folder with `facts` (from `fstat` before it was listed).
    func stamp(path: String, _ facts: StatFacts, complete: Bool) -> FolderStamp {
        let change = facts.ctimeNanos
        let kept =
            trusted && complete && facts.device == device && change > 0 && change < trustBefore
        return FolderStamp(path: path, inode: facts.inode, changeNanos: kept ? change : 0)
    }

    /// Whether the folder `facts` (an `lstat` now) is the folder `stamp` recorded, unchanged.
    func unchanged(_ facts: StatFacts, since stamp: FolderStamp) -> Bool {
        trusted && stamp.changeNanos != 0 && facts.isFolder && facts.inode == stamp.inode
            && facts.ctimeNanos == stamp.changeNanos && facts.device == device
    }
}
