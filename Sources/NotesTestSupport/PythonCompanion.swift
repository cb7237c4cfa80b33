import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A short Python program running beside a test as another process (holding a lock the way
/// another program would), spoken to line by line over its standard input and output.
public final class PythonCompanion {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    /// Starts `python3 -c source arguments…`.
    public init(_ source: String, arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", source] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    /// The next line it printed, without its newline ("" once it has ended).
    public func readLine() -> String {
        var line = Data()
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self)
    }

    /// Sends it one line.
    public func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for it to end.
    public func waitUntilExit() {
        process.waitUntilExit()
    }
}

/// The inode number of the file at `path` (0 when there is none): whether a file was
/// replaced or written in place.
public func inode(_ path: String) -> UInt64 {
    var info = stat()
    return stat(path, &info) == 0 ? UInt64(info.st_ino) : 0
}
