import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `.safetensors` file, memory-mapped read-only: an 8-byte little-endian header length,
/// a JSON header naming each tensor's dtype, shape and byte range, then the raw data.
///
/// Tensors are exposed as `UnsafeBufferPointer<Float>` into the mapping (no copy), valid
/// while this value lives. Immutable after `init`, so safe to read from several threads.
public final class SafeTensors: @unchecked Sendable {
    /// One tensor's entry in the header.
    public struct Entry: Sendable, Equatable {
        public var dtype: String
        public var shape: [Int]
        /// Byte range relative to the start of the data section.
        public var begin: Int
        public var end: Int
    }

    /// The file this was read from (for messages).
    public let url: URL
    /// Every tensor named in the header.
    public let entries: [String: Entry]
    /// The header's bytes (for a digest of the model's layout).
    public let headerBytes: [UInt8]

    private let base: UnsafeRawPointer
    private let mappedLength: Int
    private let dataStart: Int
    /// Copies of tensors whose data is not 4-byte aligned in the file (never the case for
    /// files written by the safetensors library, which pads the header).
    private let lock = NSLock()
    nonisolated(unsafe) private var alignedCopies: [String: UnsafeMutableBufferPointer<Float>] = [:]

    public init(url: URL) throws(EmbeddingError) {
        self.url = url
        let name = url.lastPathComponent
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw EmbeddingError(
                "cannot open \(url.path): \(String(cString: strerror(errno)))",
                hint: "run `notes model install`")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw EmbeddingError(
                "cannot read \(url.path): \(String(cString: strerror(errno)))",
                hint: "run `notes model install`")
        }
        let size = Int(info.st_size)
        guard size >= 8 else {
            throw EmbeddingError(
                "\(name) is truncated (\(size) bytes, no header)",
                hint: "reinstall the model: `notes model install`")
        }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED
        else {
            throw EmbeddingError(
                "cannot map \(url.path): \(String(cString: strerror(errno)))",
                hint: "check free memory and the file's permissions")
        }
        let raw = UnsafeRawPointer(mapped)
        var headerLength: UInt64 = 0
        for i in 0..<8 {
            headerLength |= UInt64(raw.load(fromByteOffset: i, as: UInt8.self)) << (8 * UInt64(i))
        }
        guard headerLength <= UInt64(size - 8), headerLength < 100_000_000 else {
            munmap(mapped, size)
            throw EmbeddingError(
                "\(name) is truncated or not a safetensors file (header of \(headerLength) bytes in a \(size)-byte file)",
                hint: "reinstall the model: `notes model install`")
        }
        let header = Array(UnsafeRawBufferPointer(start: raw + 8, count: Int(headerLength)))
        let dataStart = 8 + Int(headerLength)
        let dataLength = size - dataStart
        let parsed: [String: Entry]
        do {
            parsed = try Self.parseHeader(header, dataLength: dataLength, name: name)
        } catch {
            munmap(mapped, size)
            throw error
        }
        self.base = raw
        self.mappedLength = size
        self.dataStart = dataStart
        self.entries = parsed
        self.headerBytes = header
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: base), mappedLength)
        for copy in alignedCopies.values { copy.deallocate() }
    }

    private static func parseHeader(_ header: [UInt8], dataLength: Int, name: String)
        throws(EmbeddingError) -> [String: Entry]
    {
        guard let object = try? JSONSerialization.jsonObject(with: Data(header)) as? [String: Any]
        else {
            throw EmbeddingError(
                "\(name) has an unreadable header (not JSON)",
                hint: "reinstall the model: `notes model install`")
        }
        var entries: [String: Entry] = [:]
        for (key, value) in object where key != "__metadata__" {
            guard let fields = value as? [String: Any], let dtype = fields["dtype"] as? String,
                let shape = (fields["shape"] as? [Any])?.compactMap({ ($0 as? NSNumber)?.intValue }
                ),
                let offsets = (fields["data_offsets"] as? [Any])?.compactMap({
                    ($0 as? NSNumber)?.intValue
                }),
                offsets.count == 2, shape.allSatisfy({ $0 >= 0 })
            else {
                throw EmbeddingError(
                    "\(name) has a malformed header entry for tensor \(key)",
                    hint: "reinstall the model: `notes model install`")
            }
            guard offsets[0] >= 0, offsets[0] <= offsets[1] else {
                throw EmbeddingError(
                    "\(name) has invalid byte offsets for tensor \(key)",
                    hint: "reinstall the model: `notes model install`")
            }
            guard offsets[1] <= dataLength else {
                throw EmbeddingError(
                    "\(name) is truncated: tensor \(key) ends at byte \(offsets[1]) of a \(dataLength)-byte data section",
                    hint: "reinstall the model: `notes model install`")
            }
            entries[key] = Entry(dtype: dtype, shape: shape, begin: offsets[0], end: offsets[1])
        }
        return entries
    }

    /// The F32 tensor `name`, checked to have exactly `shape`.
    public func floats(_ name: String, shape: [Int]) throws(EmbeddingError) -> UnsafeBufferPointer<
        Float
    > {
        let file = url.lastPathComponent
        guard let entry = entries[name] else {
            throw EmbeddingError(
                "\(file) has no tensor \(name)",
                hint:
                    "is this an all-MiniLM-L6-v2 (BERT) model? reinstall it: `notes model install`")
        }
        guard entry.dtype == "F32" else {
            throw EmbeddingError(
                "\(file): tensor \(name) is \(entry.dtype), expected F32",
                hint: "install the float32 model: `notes model install`")
        }
        guard entry.shape == shape else {
            throw EmbeddingError(
                "\(file): tensor \(name) has shape \(entry.shape), expected \(shape)",
                hint:
                    "the model does not match its config.json; reinstall it: `notes model install`")
        }
        let count = shape.reduce(1, *)
        guard entry.end - entry.begin == count * MemoryLayout<Float>.stride else {
            throw EmbeddingError(
                "\(file): tensor \(name) holds \(entry.end - entry.begin) bytes, expected \(count * 4)",
                hint: "reinstall the model: `notes model install`")
        }
        let start = base + dataStart + entry.begin
        if Int(bitPattern: start) % MemoryLayout<Float>.alignment == 0 {
            return UnsafeBufferPointer(
                start: start.assumingMemoryBound(to: Float.self), count: count)
        }
        lock.lock()
        defer { lock.unlock() }
        if let copy = alignedCopies[name] { return UnsafeBufferPointer(copy) }
        let copy = UnsafeMutableBufferPointer<Float>.allocate(capacity: count)
        UnsafeMutableRawBufferPointer(copy).copyMemory(
            from: UnsafeRawBufferPointer(start: start, count: count * 4))
        alignedCopies[name] = copy
        return UnsafeBufferPointer(copy)
    }
}

/// A failure to load or run the embedding model: one line naming the file and what to do.
public struct EmbeddingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong (names the file).
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    public var description: String {
        if let hint { return "\(message) (\(hint))" }
        return message
    }
}
