import Foundation
import NotesCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder that holds one workspace's index, outside the workspace (docs/spec.md §2), as
/// a private place: the folders `notes` creates are 0700 and its files 0600 (the index holds
/// the notes' text), and a folder that is a symbolic link or belongs to another user is
/// refused, since whoever controls it could read the index or point the writes anywhere.
///
/// When the folder cannot be used (a full or read-only disk, no permission, a file where
/// the folder should be, `index.sqlite` a folder) this says why and what to do, with the
/// cause ``NotesError/Cause/indexUnusable``: reading, writing and listing the notes go on
/// without the index, and the hint never says to rebuild it, which would fail the same way.
public enum IndexFolder {
    /// The error's message starts with this (search cannot run; the files are fine).
    static let prefix = "the search index cannot be used: "
    /// What the person can always do instead.
    static let elsewhere = "or set NOTES_INDEX_DIR to another folder"

    /// Creates `directory` (and missing parents, 0700) and checks it is a folder of this
    /// user's that `notes` may use; tightens one an older `notes` made readable by others.
    static func prepare(_ directory: String) throws(NotesError) {
        var current = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o700) != 0 && errno != EEXIST {
                throw explain(
                    directory, errno: errno,
                    detail: "cannot create \(current): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard lstat(directory, &info) == 0 else {
            throw explain(directory, errno: errno, detail: String(cString: strerror(errno)))
        }
        if let refusal = refusal(directory, info) { throw refusal }
        if info.st_mode & 0o077 != 0 { chmod(directory, 0o700) }
        var file = stat()
        let database = directory + "/" + NoteIndex.databaseFileName
        if lstat(database, &file) == 0 {
            guard file.st_mode & S_IFMT == S_IFREG else {
                throw explain(directory, errno: EISDIR, detail: "")
            }
            if file.st_mode & 0o077 != 0 {
                for suffix in ["", "-wal", "-shm"] { chmod(database + suffix, 0o600) }
            }
        }
    }

    /// Why `directory` (lstat'ed as `info`) must not be used, if it must not.
    static func refusal(_ directory: String, _ info: stat) -> NotesError? {
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            return NotesError(
                .ioError,
                prefix
                    + "its folder \(directory) is a symbolic link, which notes does not follow (whoever can change the link chooses where the index goes)",
                hint: "replace the link with a folder of your own, " + elsewhere,
                cause: .indexUnusable)
        case S_IFDIR:
            guard info.st_uid == geteuid() else {
                return NotesError(
                    .ioError,
                    prefix
                        + "its folder \(directory) belongs to another user (uid \(info.st_uid)), who could read the notes' text in it",
                    hint: "set NOTES_INDEX_DIR to a folder of your own", cause: .indexUnusable)
            }
            return nil
        default:
            return NotesError(
                .ioError, prefix + "\(directory) is not a folder",
                hint: "move that file away, " + elsewhere, cause: .indexUnusable)
        }
    }

    /// Creates the database file `path` empty with mode 0600 before SQLite opens it, so the
    /// notes' text is never in a file others can read (SQLite would make it 0644, and gives
    /// its `-wal` and `-shm` files the database's mode). An existing file is left as it is.
    static func createPrivateFile(_ path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 { close(fd) }
    }

    /// Why `directory` cannot hold the index, from what is there now: the folder (or a file
    /// instead), `index.sqlite`, the disk's read-only flag, the permissions, the free space.
    /// `errno` and `full` are what the failed call said; `detail` is used when nothing
    /// else explains it.
    static func explain(
        _ directory: String, errno code: Int32 = 0, full: Bool = false, detail: String
    ) -> NotesError {
        func unusable(_ why: String, _ hint: String) -> NotesError {
            NotesError(
                .ioError, prefix + why, hint: hint,
                details: code != 0 ? ErrorDetails(errno: code) : nil, cause: .indexUnusable)
        }
        var info = stat()
        if lstat(directory, &info) == 0 {
            if let refusal = refusal(directory, info) { return refusal }
        } else if code == ENOTDIR || errno == ENOTDIR {
            return unusable(
                "a part of \(directory) is a file, not a folder",
                "move that file away, " + elsewhere)
        }
        let database = directory + "/" + NoteIndex.databaseFileName
        var file = stat()
        if lstat(database, &file) == 0, file.st_mode & S_IFMT != S_IFREG {
            return unusable(
                "\(database) is not a file",
                "move it away and notes makes a new index, " + elsewhere)
        }
        // The nearest folder that exists tells about the disk.
        var existing = directory
        while !existing.isEmpty && existing != "/" && !FileSystem.isDirectory(existing) {
            existing = String(existing[..<(existing.lastIndex(of: "/") ?? existing.startIndex)])
        }
        if existing.isEmpty { existing = "/" }
        var disk = statvfs()
        let knowsDisk = statvfs(existing, &disk) == 0
        if code == EROFS || (knowsDisk && disk.f_flag & UInt(ST_RDONLY) != 0) {
            return unusable(
                "the disk holding \(directory) is read-only",
                "set NOTES_INDEX_DIR to a folder on a writable disk")
        }
        if code == EACCES || code == EPERM || access(existing, W_OK) != 0
            || (FileSystem.exists(database) && access(database, R_OK | W_OK) != 0)
        {
            let place =
                existing == directory
                ? "write in \(directory)" : "create \(directory) (in \(existing))"
            return unusable(
                "no permission to \(place)", "fix the permissions of \(existing), " + elsewhere)
        }
        if full || code == ENOSPC || code == EDQUOT || (knowsDisk && disk.f_bavail == 0) {
            return unusable(
                "the disk holding \(directory) is full",
                "free some space, or set NOTES_INDEX_DIR to a folder on another disk")
        }
        return unusable("\(directory): \(detail)", "check that folder, " + elsewhere)
    }
}
