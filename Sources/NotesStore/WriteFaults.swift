import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fault injection for the reliability suite (docs/guarantees.md). Unset, each hook costs
/// one comparison.
///
/// - `NOTES_CRASH_AT=<step>`: the process kills itself (SIGKILL) on reaching that step of
///   the write protocol, so a test can check what a crash there leaves behind.
/// - `NOTES_FAIL_IO=<call>:<n>:<errno>[:always]`: the `n`th system call of kind `call`
///   (`open`, `write`, `fsync`, `rename`, `mkdir`, `unlink`, or `any`) made by the write
///   path fails with `errno` (`ENOSPC`, `EIO`, `EACCES`, … or a number), once or, with
///   `always`, from then on. SQLite's own I/O is not covered (the index is a cache).
///   With `torn` (`write:3:ENOSPC:torn`), that write first writes half its bytes (a short
///   write, as a disk filling mid-line gives) and then fails.
/// - `NOTES_PAUSE_AT=<step>:<seconds>`: the process sleeps on reaching that step, so a
///   test can run another process inside the write (a refresh between rename and log line).
enum WriteFaults {
    enum Step: String {
        case historyStored = "history-stored"
        case intentWritten = "intent-written"
        case temporarySynced = "temporary-synced"
        case renamed
        case logged
    }

    /// The kinds of system call the write path makes.
    enum Call: String {
        case open, write, fsync, rename, mkdir, unlink
    }

    static let crashStep: Step? = ProcessInfo.processInfo.environment["NOTES_CRASH_AT"].flatMap(
        Step.init(rawValue:))

    static let pause: (step: Step, seconds: Double)? = ProcessInfo.processInfo.environment[
        "NOTES_PAUSE_AT"
    ].flatMap { text in
        let parts = text.split(separator: ":")
        guard parts.count == 2, let step = Step(rawValue: String(parts[0])),
            let seconds = Double(parts[1]), seconds >= 0
        else { return nil }
        return (step, seconds)
    }

    static func reach(_ step: Step) {
        if crashStep == step { kill(getpid(), SIGKILL) }
        if let pause, pause.step == step { usleep(useconds_t(pause.seconds * 1e6)) }
    }

    /// The configured I/O failure: which calls, the ordinal that fails, the error, whether it persists.
    struct IOFault {
        let call: Call?  // nil: any call
        let ordinal: Int
        let code: Int32
        let persistent: Bool
        /// The failing write writes half its bytes first.
        let torn: Bool

        init?(_ text: String) {
            let parts = text.split(separator: ":").map(String.init)
            guard parts.count >= 3, let ordinal = Int(parts[1]), ordinal >= 1 else { return nil }
            if parts[0] == "any" {
                call = nil
            } else if let call = Call(rawValue: parts[0]) {
                self.call = call
            } else {
                return nil
            }
            let names: [String: Int32] = [
                "ENOSPC": ENOSPC, "EIO": EIO, "EACCES": EACCES, "EPERM": EPERM, "EROFS": EROFS,
                "EDQUOT": EDQUOT,
            ]
            guard let code = names[parts[2]] ?? Int32(parts[2]) else { return nil }
            self.ordinal = ordinal
            self.code = code
            persistent = parts.dropFirst(3).contains("always")
            torn = parts.dropFirst(3).contains("torn")
        }
    }

    static let ioFault: IOFault? = ProcessInfo.processInfo.environment["NOTES_FAIL_IO"].flatMap(
        IOFault.init)
    private nonisolated(unsafe) static var callCount = 0
    private static let countLock = NSLock()

    /// Whether the injected fault hits this `call`; when it does, `errno` is set as the
    /// failing system call would have set it. Use as `injected(.write) ? -1 : write(…)`.
    static func injected(_ call: Call) -> Bool {
        guard let fault = ioFault, fault.call == nil || fault.call == call else { return false }
        countLock.lock()
        callCount += 1
        let n = callCount
        countLock.unlock()
        guard n == fault.ordinal || (fault.persistent && n > fault.ordinal) else { return false }
        errno = fault.code
        return true
    }

    /// One `write` of all of `bytes` to `fd`, with the injected fault applied: a failure
    /// returns -1 with `errno` set, or, with `torn`, writes half and returns that count.
    static func injectedWrite(_ fd: Int32, _ bytes: [UInt8]) -> Int {
        guard injected(.write) else {
            return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
        guard let fault = ioFault, fault.torn, bytes.count > 1 else { return -1 }
        let code = errno
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count / 2) }
        errno = code
        return n
    }
}
