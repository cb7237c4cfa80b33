#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether this process can open a path refusing symlinks in the kernel (`openat2`).
enum NoSymlinkOpen {
    /// Cleared the first time the kernel says it has no `openat2` (then every read checks
    /// the descriptor's path instead). Tests clear it to run the fallback.
    nonisolated(unsafe) static var isAvailable = true

    /// Errors that mean "no `openat2` here", not "this path cannot be opened".
    static func isUnsupported(_ code: Int32) -> Bool {
        code == ENOSYS || code == EPERM || code == EINVAL || code == E2BIG
    }
}
