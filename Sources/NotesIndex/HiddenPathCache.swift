import Foundation
import NotesCore

/// Remembers which paths the policy hides (canonicalising a path costs microseconds, and a
/// search may test thousands of candidate files).
final class HiddenPathCache: @unchecked Sendable {
    private let policy: PathPolicy
    private let lock = NSLock()
    private var verdicts: [String: Bool] = [:]

    init(_ policy: PathPolicy) { self.policy = policy }

    func isHidden(_ path: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let known = verdicts[path] { return known }
        let hidden = policy.rule(for: path) == .deny
        if verdicts.count > 200_000 { verdicts.removeAll() }
        verdicts[path] = hidden
        return hidden
    }
}
