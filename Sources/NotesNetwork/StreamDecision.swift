import CCurl
import Foundation
import Synchronization

/// What a streaming consumer says after each chunk.
public enum StreamDecision: Sendable {
    case proceed
    /// End the transfer now (the caller has what it needs, or gave up).
    case stop
}
