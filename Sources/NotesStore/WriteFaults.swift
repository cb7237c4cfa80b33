import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash points of the write protocol, for tests: with `NOTES_CRASH_AT=<step>` in the
/// environment the process kills itself (SIGKILL) on reaching that step, so a test can
/// check what a crash there leaves behind (reliability plan B.9). Unset, it costs one
/// comparison per step.
enum WriteFaults {
    enum Step: String {
        case historyStored = "history-stored"
        case intentWritten = "intent-written"
        case temporarySynced = "temporary-synced"
        case renamed
        case logged
    }

    static let crashStep: Step? = ProcessInfo.processInfo.environment["NOTES_CRASH_AT"].flatMap(Step.init(rawValue:))

    static func reach(_ step: Step) {
        if crashStep == step { kill(getpid(), SIGKILL) }
    }
}
