import Foundation

/// The stat facts a walk compares (an `lstat`, trimmed: a 100k-note workspace keeps one per file).
struct StatFacts: Sendable {
    var mode: UInt32
    var device: UInt64
    var inode: UInt64
    var size: Int
    var mtimeNanos: Int64
    var ctimeNanos: Int64

    init(_ info: stat) {
        mode = UInt32(info.st_mode)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int(info.st_size)
        mtimeNanos = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        ctimeNanos = Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
    }

    var isFolder: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }
    var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
}
