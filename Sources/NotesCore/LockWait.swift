import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Every wait on another `notes` process is bounded and names who it waits for (issue 34
/// item 3): a holder writes its pid, command and start time into the lock file it holds
/// exclusively; a waiter gives up after ``timeout`` with a one-line `busy` error naming
/// them. A stopped holder (SIGSTOP, Ctrl-Z) keeps its lock: without a bound, everyone
/// waited forever.
public enum LockWait {
    /// Seconds a command waits for a lock another notes process holds (30;
    /// `NOTES_LOCK_TIMEOUT` sets it, for tests and scripts).
    public static let timeout: Double =
        ProcessInfo.processInfo.environment["NOTES_LOCK_TIMEOUT"].flatMap(Double.init).map {
            max(0, $0)
        } ?? 30

    /// When this process started (close enough: when this was first read).
    private static let started = Timestamp.now()

    /// What a holder writes: `pid\tcommand\tstart time\n`.
    public static func holderRecord() -> [UInt8] {
        let name =
            (CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent }) ?? "notes"
        let command = ([name] + CommandLine.arguments.dropFirst().prefix(6)).joined(separator: " ")
            .replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
        return Array("\(getpid())\t\(command.prefix(200))\t\(Timestamp.format(started))\n".utf8)
    }

    /// Writes this process's record into `fd` (a lock file it now holds exclusively).
    public static func recordHolder(_ fd: Int32) {
        let record = holderRecord()
        _ = ftruncate(fd, 0)
        _ = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// "pid 123 (`notes index --rebuild`, started 2026-11-26T10:31:02Z)" from a lock file's
    /// record, or "another notes process" when it holds none.
    public static func describeHolder(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 512)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return "another notes process" }
        let text = String(decoding: buffer[..<n], as: UTF8.self).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let parts = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard let pid = parts.first, !pid.isEmpty, pid.allSatisfy(\.isNumber) else {
            return "another notes process"
        }
        // The record outlives its writer: a holder that writes none (another program's
        // `flock`) must not be reported as a process that has exited, whose pid may be reused.
        if let number = pid_t(pid), kill(number, 0) != 0, errno == ESRCH {
            return "another process (the last notes process recorded there, pid \(pid), has exited)"
        }
        var description = "another notes process, pid \(pid)"
        var extras: [String] = []
        if parts.count > 1, !parts[1].isEmpty { extras.append("`\(parts[1])`") }
        if parts.count > 2, !parts[2].isEmpty { extras.append("started \(parts[2])") }
        if let state = processState(pid) { extras.append(state) }
        if !extras.isEmpty { description += " (" + extras.joined(separator: ", ") + ")" }
        return description
    }

    /// "stopped" when the process is stopped (SIGSTOP, Ctrl-Z), from `/proc` where there is one.
    public static func processState(_ pid: String) -> String? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else {
            return nil
        }
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "T" || state == "t" ? "stopped" : nil
    }

    /// The one-line error after waiting `seconds` for `holder` to let go of `what`.
    public static func busy(_ what: String, holder: String, waited seconds: Double) -> NotesError {
        NotesError(
            .busy,
            "busy: \(holder) has held \(what) for longer than the \(formatSeconds(seconds)) this command waits",
            hint:
                "let it finish, or resume it if it was stopped (`kill -CONT <pid>`), then retry; NOTES_LOCK_TIMEOUT sets the wait"
        )
    }

    static func formatSeconds(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
    }

    /// Tries `attempt` (a non-blocking lock call: true when taken) until it succeeds or
    /// ``timeout`` passes; `onFirstWait` runs once, when the first try fails.
    public static func poll(
        timeout: Double = LockWait.timeout, onFirstWait: () -> Void = {}, _ attempt: () -> Bool
    ) -> Bool {
        if attempt() { return true }
        onFirstWait()
        let deadline = Timestamp.now() + timeout
        var pause: useconds_t = 1000
        while Timestamp.now() < deadline {
            usleep(pause)
            pause = min(pause * 2, 50_000)
            if attempt() { return true }
        }
        return attempt()
    }
}
