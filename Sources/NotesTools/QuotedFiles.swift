import Foundation
import NotesCore
import NotesIndex

/// The files a session's search answers quote their lines from (``SearchAnswer``), kept by
/// path and version, so that the next search that finds a file neither reads it again nor,
/// for a book, counts its lines: a version names exactly one content, and an edit gives
/// the file a new one. At most ``budget`` bytes are kept, a file of up to half of it; when
/// full, the least recently used go first, down to three quarters of it. A large note that
/// answers question after question is then read and counted once.
final class QuotedFiles: @unchecked Sendable {
    static let budget = 32 * 1024 * 1024

    private let lock = NSLock()
    private var kept: [String: (version: String, file: QuotedFile, used: UInt64)] = [:]
    private(set) var keptBytes = 0
    private var clock: UInt64 = 0

    /// `path`'s bytes at `version` (the hit's), read by `read` when not kept; nil when it
    /// cannot be read.
    func file(_ path: String, version: String, read: () -> [UInt8]?) -> QuotedFile? {
        lock.lock()
        clock += 1
        if let entry = kept[path], entry.version == version {
            kept[path]?.used = clock
            lock.unlock()
            return entry.file
        }
        lock.unlock()
        guard let bytes = read() else { return nil }
        let file = QuotedFile(bytes)
        guard bytes.count <= Self.budget / 2 else { return file }
        lock.lock()
        defer { lock.unlock() }
        if let old = kept.removeValue(forKey: path) { keptBytes -= old.file.bytes.count }
        if keptBytes + bytes.count > Self.budget {
            for (path, entry) in kept.sorted(by: { $0.value.used < $1.value.used }) {
                guard keptBytes + bytes.count > Self.budget * 3 / 4 else { break }
                kept[path] = nil
                keptBytes -= entry.file.bytes.count
            }
        }
        kept[path] = (version, file, clock)
        keptBytes += bytes.count
        return file
    }
}
