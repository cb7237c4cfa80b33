import Foundation
import NotesCore

/// Compiled globs, shared by connections.
final class GlobCache: @unchecked Sendable {
    private let lock = NSLock()
    private var globs: [String: Glob] = [:]

    func glob(_ pattern: String) -> Glob {
        lock.lock()
        defer { lock.unlock() }
        if let glob = globs[pattern] { return glob }
        let glob = Glob(pattern)
        if globs.count > 64 { globs.removeAll() }
        globs[pattern] = glob
        return glob
    }
}
