import Foundation
import NotesCore

/// How the index's side files (``LayoutSnapshot``, ``VectorFile``, ``CoverageFile``) are
/// replaced: written whole into a file of their own beside the database, then renamed over
/// the old one, so a reader sees the old file or the new, never a mix, and a mapping another
/// process holds stays valid.
enum CacheFile {
    /// Writes `bytes` to `directory/name` by a new file renamed over it; on any failure the
    /// new file goes and the old one stays. `syncing`: the data reaches the disk before the
    /// name does (for a file whose header promises what its pages hold). Best effort: a
    /// folder that cannot take it leaves the readers doing without.
    static func replace(
        _ name: String, in directory: String, with bytes: UnsafeRawBufferPointer,
        syncing: Bool = false
    ) {
        let target = directory + "/" + name
        // A process killed between creating its file and renaming it left one behind.
        FileSystem.removeFilesOfEndedProcesses(in: directory, prefix: name + ".")
        let temporary = target + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        var done = 0
        while done < bytes.count {
            let wrote = Foundation.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if wrote < 0 && errno == EINTR { continue }
            guard wrote > 0 else { break }
            done += wrote
        }
        let complete = done == bytes.count && (!syncing || fsync(fd) == 0)
        close(fd)
        if !complete || rename(temporary, target) != 0 { unlink(temporary) }
    }
}
