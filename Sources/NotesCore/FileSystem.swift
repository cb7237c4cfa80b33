import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Small POSIX facts used across the package.
public enum FileSystem {
    /// Removes the files in `directory` named `prefix` + a process id (+ optionally `.`
    /// and more) whose process no longer runs: temporary files a killed process left
    /// between creating and renaming or removing them. This process's own are kept.
    public static func removeFilesOfEndedProcesses(in directory: String, prefix: String) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name.hasPrefix(prefix),
                let digits = name.dropFirst(prefix.count).split(
                    separator: ".", omittingEmptySubsequences: false
                ).first,
                let pid = Int32(digits), pid > 0, pid != getpid()
            else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { unlink(directory + "/" + name) }
        }
    }

    /// The canonical absolute path of an existing file or folder, symlinks resolved.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether the open descriptor `fd` is the file or folder at `path` (an absolute real
    /// path), so that nothing reached through a swapped-in symlink is used. A file replaced
    /// by an atomic rename after it was opened still counts: Linux then names it
    /// "`path` (deleted)", and its bytes are the previous version of `path` (a reader racing
    /// a writer gets the old or the new version, never "not found").
    public static func descriptor(_ fd: Int32, isAt path: String) -> Bool {
        guard let actual = descriptorPath(fd) else { return false }
        return actual == path || actual == path + " (deleted)"
    }

    /// Where the kernel says open descriptor `fd` is (symlinks resolved); nil when it
    /// cannot say. A file deleted since it was opened gets a " (deleted)" suffix on Linux.
    public static func descriptorPath(_ fd: Int32) -> String? {
        #if os(Linux)
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
            guard n > 0 else { return nil }
            return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #else
            var buffer = [CChar](repeating: 0, count: Int(MAXPATHLEN) + 1)
            guard fcntl(fd, F_GETPATH, &buffer) == 0 else { return nil }
            return String(cString: buffer)
        #endif
    }

    /// Whether `path` is an existing folder (symlinks followed).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Whether anything exists at `path` (symlinks not followed).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The current working directory.
    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Creates a folder and its parents (mode 0755); succeeds if it exists.
    public static func makeDirectories(_ path: String) throws(NotesError) {
        var current = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/") {
            current += "/" + part
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw NotesError.system(
                    errno, "cannot create folder \(current): \(String(cString: strerror(errno)))")
            }
        }
    }
}
