import Foundation

/// A fresh folder under the system's temp directory, removed when the value is released.
/// Used by tests only.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The folder's canonical absolute path.
    public let path: String

    public init(prefix: String = "notes-test") {
        let template = NSTemporaryDirectory() + "/\(prefix)-XXXXXX"
        var bytes = Array(template.utf8CString)
        let made = bytes.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        let raw = bytes.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        path =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: raw))
            ?? URL(fileURLWithPath: raw).resolvingSymlinksInPath().path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes `text` to the relative `name`, creating folders.
    @discardableResult
    public func write(_ name: String, _ text: String) -> String {
        write(name, bytes: Array(text.utf8))
    }

    /// Writes bytes to the relative `name`, creating folders. Plain open, write, close: a
    /// scratch file needs no durability, and Foundation's `Data.write` syncs every file to the
    /// disk, which made fixtures of thousands of files wait on it.
    @discardableResult
    public func write(_ name: String, bytes: [UInt8]) -> String {
        let full = path + "/" + name
        try! FileManager.default.createDirectory(
            atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let fd = open(full, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        precondition(fd >= 0, "cannot create \(full): errno \(errno)")
        defer { close(fd) }
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = posixWrite(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 && errno == EINTR { continue }
                precondition(n > 0, "cannot write \(full): errno \(errno)")
                offset += n
            }
        }
        return full
    }

    /// Copies a folder tree into `name` (relative).
    public func copy(tree source: String, to name: String) -> String {
        let destination = path + "/" + name
        try! FileManager.default.copyItem(atPath: source, toPath: destination)
        return destination
    }
}

/// write(2), named apart from TemporaryDirectory's own `write`.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// Paths of things in the repository, found from this source file's location.
public enum Repository {
    /// The repository root (the folder holding Package.swift).
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.path + "/Package.swift") {
                return url.path
            }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `sample-workspace/`.
    public static var sampleWorkspace: String { root + "/sample-workspace" }

    /// `Tests/Fixtures/`: small copies of real notes (see its README.md).
    public static var fixtures: String { root + "/Tests/Fixtures" }

    /// `scripts/gen-workspace.py`: the project's synthetic workspace generator.
    public static var workspaceGenerator: String { root + "/scripts/gen-workspace.py" }

    /// The large corpora (`dendron-vault/`, `tldr-pages/`, `gutenberg/`), only when the
    /// environment variable `NOTES_CORPORA` names a folder: tests that want thousands of
    /// real files use them then, and say that they skipped them otherwise.
    public static var largeCorpora: String? {
        guard let path = ProcessInfo.processInfo.environment["NOTES_CORPORA"], !path.isEmpty else {
            return nil
        }
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// A model folder that does not exist: the binary a test runs searches by words alone
    /// (and `notes index` embeds nothing) unless the test passes the installed model's folder
    /// as `NOTES_MODEL_DIR` (``installedModel``).
    public static let noModel = "/nonexistent/notes-test-no-model"

    /// The installed embedding model's folder: `NOTES_TEST_MODEL_DIR` (scripts/test sets it,
    /// and sets `NOTES_MODEL_DIR` to ``noModel`` for everything else), else where `notes`
    /// finds it without `NOTES_MODEL_DIR` (scripts/setup installs it there); nil when it is
    /// not installed.
    public static var installedModel: String? {
        let env = ProcessInfo.processInfo.environment
        if let dir = env["NOTES_TEST_MODEL_DIR"], !dir.isEmpty {
            return FileManager.default.fileExists(atPath: dir + "/model.safetensors") ? dir : nil
        }
        let data =
            env["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? ((env["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        let dir = data + "/notes/models/all-MiniLM-L6-v2"
        return FileManager.default.fileExists(atPath: dir + "/model.safetensors") ? dir : nil
    }

    /// The built `notes` binary: `$NOTES_BIN`, else the debug build (`swift build --product
    /// notes` first; `scripts/test` does). A binary built here that is older than its sources
    /// ends the test run with a message saying so (``BuiltBinary/requireCurrent(_:)``): the
    /// CLI tests must never pass on a stale build.
    public static var notesBinary: String {
        let path = ProcessInfo.processInfo.environment["NOTES_BIN"] ?? root + "/.build/debug/notes"
        BuiltBinary.requireCurrent(path)
        return path
    }
}

/// Whether a binary built in this repository's `.build` is current: not older than any
/// source file of the modules SwiftPM linked into it (listed in its
/// `<product>.product/Objects.LinkFileList`). The same check as Tests/support/notes_testing.py.
public enum BuiltBinary {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var checked: [String: String?] = [:]

    /// Why `path` is older than its sources (the first newer source found), nil when it is
    /// current or was not built in this repository.
    public static func staleness(of path: String) -> String? {
        let binary = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        let build =
            URL(fileURLWithPath: Repository.root + "/.build").resolvingSymlinksInPath().path + "/"
        guard binary.path.hasPrefix(build) else { return nil }
        let list =
            binary.deletingLastPathComponent().path
            + "/\(binary.lastPathComponent).product/Objects.LinkFileList"
        guard let objects = try? String(contentsOfFile: list, encoding: .utf8),
            let built = modificationTime(binary.path)
        else { return nil }
        let modules = Set(
            objects.split(separator: "\n").compactMap { line -> String? in
                let folder = URL(fileURLWithPath: String(line)).deletingLastPathComponent()
                    .lastPathComponent
                return folder.hasSuffix(".build") ? String(folder.dropLast(6)) : nil
            })
        for module in modules.sorted() {
            let folder = Repository.root + "/Sources/" + module
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            while let name = walker.nextObject() as? String {
                if let time = modificationTime(folder + "/" + name), time > built {
                    return "\(path) is older than Sources/\(module)/\(name)"
                }
            }
        }
        return nil
    }

    /// Ends the test process (exit status 2) with one clear line when `path`, or `notes-mcp`
    /// next to it, is older than its sources; checked once per binary.
    public static func requireCurrent(_ path: String) {
        let mcp = URL(fileURLWithPath: path).deletingLastPathComponent().path + "/notes-mcp"
        for binary in [path, mcp] {
            let reason = lock.withLock { () -> String? in
                if let cached = checked[binary] { return cached }
                let found = staleness(of: binary)
                checked[binary] = found
                return found
            }
            if let reason {
                FileHandle.standardError.write(
                    Data(
                        "notes tests: \(reason): run `swift build --product notes && swift build --product notes-mcp` (scripts/test does) before the tests\n"
                            .utf8))
                exit(2)
            }
        }
    }

    private static func modificationTime(_ path: String) -> Double? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}

/// The outcome of running a program.
public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs `executable` with `arguments`, optional stdin, environment additions and cwd.
public func run(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    directory: String? = nil, stdin: String? = nil
) -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env.removeValue(forKey: "NOTES_WORKSPACE")
    env["NOTES_MODEL_DIR"] = Repository.noModel
    for (k, v) in environment { env[k] = v }
    process.environment = env
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let out = Pipe()
    let err = Pipe()
    let input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    try! process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
        stderr: String(decoding: errData, as: UTF8.self))
}

/// Starts the `notes` binary in the background (output discarded), for tests that kill,
/// race or wait for it.
public func launchNotes(_ arguments: [String], environment: [String: String] = [:]) throws
    -> Process
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Repository.notesBinary)
    process.arguments = arguments
    var env = ProcessInfo.processInfo.environment
    env["NOTES_MODEL_DIR"] = Repository.noModel
    for (k, v) in environment { env[k] = v }
    process.environment = env
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

extension Repository {
    /// Whether this run includes the tests tagged `reliability` (crash rounds, kill loops,
    /// soaks): `NOTES_RELIABILITY=1` (scripts/reliability sets it) or `NOTES_SOAK=1`.
    public static var runsReliabilityRounds: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["NOTES_RELIABILITY"] == "1" || env["NOTES_SOAK"] == "1"
    }
}

/// How many rounds a loop of random rounds, kills or races runs: `quick` in a developer's run
/// and in `scripts/test`; `campaign` (when given) under `NOTES_CAMPAIGN=1`, which CI's
/// `.ci/run` sets, so CI keeps the longer campaign (docs/decisions.md D256); `soak` when
/// `NOTES_SOAK=1` (scripts/reliability --soak). The same checks at every size.
public func soakScaled(_ quick: Int, _ soak: Int, campaign: Int? = nil) -> Int {
    let environment = ProcessInfo.processInfo.environment
    if environment["NOTES_SOAK"] == "1" { return soak }
    if environment["NOTES_CAMPAIGN"] == "1", let campaign { return campaign }
    return quick
}
