import Foundation
import Logging
import MCP

#if canImport(Glibc)
    import Glibc
#endif

/// Newline-delimited JSON-RPC on stdin/stdout (the MCP stdio transport), read by a
/// dedicated thread with blocking reads.
///
/// The SDK's own `StdioTransport` polls non-blocking descriptors with 10 ms sleeps (up to
/// 10 ms added to every call) and rescans its whole buffer on each 4 KB read (quadratic in
/// a multi-megabyte `write_file`). This one wakes as soon as a line arrives, scans each byte
/// once, and screens messages before the SDK sees them: too large or nested too deeply is
/// answered with a clear error (see ``MessageScreen``). Well-formed `tools/call` requests
/// go to the ``ToolCallShortcut`` instead of the SDK.
actor LineTransport: Transport {
    nonisolated let logger: Logger
    private let input: Int32
    private let writer: LineWriter
    private let maxMessageBytes: Int
    private let shortcut: ToolCallShortcut?
    private let stream: AsyncThrowingStream<Data, any Error>
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    private var connected = false

    init(
        input: Int32 = 0, output: Int32 = 1, maxMessageBytes: Int,
        shortcut: ToolCallShortcut? = nil, logger: Logger
    ) {
        self.input = input
        self.shortcut = shortcut
        self.writer = LineWriter(output: output)
        self.maxMessageBytes = maxMessageBytes
        self.logger = logger
        (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Data.self, throwing: (any Error).self)
    }

    func connect() async throws {
        guard !connected else { return }
        connected = true
        let reader = LineReader(
            input: input, maxMessageBytes: maxMessageBytes, continuation: continuation,
            shortcut: shortcut
        ) { [writer] message in
            try? writer.write(message)
        }
        let thread = Thread { reader.run() }
        thread.name = "notes-mcp-stdin"
        thread.start()
    }

    func disconnect() async {
        guard connected else { return }
        connected = false
        continuation.finish()
    }

    func send(_ message: Data) async throws {
        try writer.write(message)
    }

    func receive() -> AsyncThrowingStream<Data, any Error> { stream }
}

/// Writes each message as one line on the output, one message at a time: the SDK's
/// answers (through the actor) and the ones sent straight from the reader's and the tool
/// queue's threads never interleave. Synchronous, so that a tool call's answer is written
/// by the thread that made it, without waiting for a task to be scheduled.
final class LineWriter: @unchecked Sendable {
    private let output: Int32
    private let lock = NSLock()

    init(output: Int32) { self.output = output }

    func write(_ message: Data) throws {
        var bytes = [UInt8](message)
        bytes.append(0x0A)
        lock.lock()
        defer { lock.unlock() }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                writeBytes(output, $0.baseAddress, $0.count)
            }
            if written > 0 {
                offset += written
            } else if written < 0 && (errno == EINTR || errno == EAGAIN) {
                var pfd = pollfd(fd: output, events: Int16(POLLOUT), revents: 0)
                _ = poll(&pfd, 1, 100)
            } else {
                throw MCPError.transportError(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            }
        }
    }
}

/// write(2), named apart from ``LineWriter/write(_:)``.
private func writeBytes(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// The blocking read loop behind ``LineTransport``.
private final class LineReader: @unchecked Sendable {
    let input: Int32
    let maxMessageBytes: Int
    let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    let shortcut: ToolCallShortcut?
    /// Sends a message the SDK never sees (a refusal, a shortcut's answer).
    let send: @Sendable (Data) -> Void

    init(
        input: Int32, maxMessageBytes: Int,
        continuation: AsyncThrowingStream<Data, any Error>.Continuation,
        shortcut: ToolCallShortcut?, send: @escaping @Sendable (Data) -> Void
    ) {
        self.input = input
        self.shortcut = shortcut
        self.send = send
        self.maxMessageBytes = maxMessageBytes
        self.continuation = continuation
    }

    /// Refusals are written from a queue of their own: the reader goes on reading while a
    /// client that sends a batch before reading leaves stdout full.
    private let refusals = DispatchQueue(label: "notes-mcp-refusals")

    private func refuse(_ message: Data) {
        refusals.async { [send] in send(message) }
    }

    /// Bytes of an oversized message kept to find its id and method.
    static let headBytes = 64 << 10

    func run() {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var line: [UInt8] = []
        var oversized = false
        var oversizedCount = 0
        while true {
            let n = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN {
                    var pfd = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
                    _ = poll(&pfd, 1, 1000)
                    continue
                }
                break
            }
            if n == 0 { break }
            var start = 0
            while start < n {
                let newline = chunk[start..<n].firstIndex(of: 0x0A)
                let end = newline ?? n
                if oversized {
                    oversizedCount += end - start
                } else if line.count + (end - start) > maxMessageBytes {
                    oversized = true
                    oversizedCount = line.count + (end - start)
                    let room = max(0, Self.headBytes - line.count)
                    line.append(contentsOf: chunk[start..<min(end, start + room)])
                } else {
                    line.append(contentsOf: chunk[start..<end])
                }
                guard let newline else { break }
                if oversized {
                    let screen = MessageScreen(line)
                    refuse(
                        MessageScreen.refusal(
                            id: screen.id, method: screen.method, code: "too_large",
                            message:
                                "the request is \(oversizedCount) bytes, over the server's limit of \(maxMessageBytes)",
                            hint:
                                "send less at once: split the content into several files or appends"
                        ))
                } else {
                    deliver(line)
                }
                line.removeAll(keepingCapacity: line.count < (1 << 20))
                oversized = false
                oversizedCount = 0
                start = newline + 1
            }
        }
        if !line.isEmpty && !oversized { deliver(line) }
        continuation.finish()
    }

    private func deliver(_ line: [UInt8]) {
        var bytes = line[...]
        if bytes.last == 0x0D { bytes = bytes.dropLast() }
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
        let screen = MessageScreen(bytes)
        if screen.depth > MessageScreen.maxDepth {
            refuse(
                MessageScreen.refusal(
                    id: screen.id, method: screen.method, code: "invalid_argument",
                    message:
                        "the request nests \(screen.depth) levels deep (at most \(MessageScreen.maxDepth))",
                    hint: "pass plain values as the tool's schema describes"))
            return
        }
        let message = Data(bytes)
        if let shortcut, shortcut.take(message, screen: screen, reply: send) { return }
        continuation.yield(message)
    }
}
