import ArgumentParser
import Foundation
import NotesCore
import NotesIndex
import Synchronization

/// How output is styled: ANSI color as `--color` says (``ColorChoice``), by default only
/// when stdout is a terminal and `NO_COLOR` is not set (https://no-color.org); progress only
/// when stderr is a terminal.
enum Terminal {
    static let stdoutIsTTY = isatty(STDOUT_FILENO) == 1
    static let stderrIsTTY = isatty(STDERR_FILENO) == 1

    /// Whether `auto` colors: stdout is a terminal, `NO_COLOR` is unset or empty and
    /// `TERM` is not `dumb`.
    static let colorsWhenAuto: Bool = {
        let env = ProcessInfo.processInfo.environment
        if let noColor = env["NO_COLOR"], !noColor.isEmpty { return false }
        if env["TERM"] == "dumb" { return false }
        return stdoutIsTTY
    }()

    private static let choice = Mutex(ColorChoice.auto)

    /// Makes `chosen` (`--color`) the rule for the rest of the run.
    static func use(_ chosen: ColorChoice) { choice.withLock { $0 = chosen } }

    /// Whether output is colored.
    static var color: Bool {
        switch choice.withLock({ $0 }) {
        case .always: true
        case .never: false
        case .auto: colorsWhenAuto
        }
    }

    enum Style: String {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", blue = "34", magenta =
            "35", cyan = "36", boldRed = "1;31"
    }

    static func style(_ text: String, _ style: Style) -> String {
        color ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Writes to standard output (buffered by the caller's `print`).
    static func write(_ text: String) {
        StandardStreams.writeOutput(text)
    }

}

/// `--color`: `auto` colors on a terminal unless `NO_COLOR` is set; `always` colors even in
/// a pipe (for `less -R`, `grep --color`), over `NO_COLOR`, since it was asked for by name;
/// `never` never colors.
enum ColorChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
    case auto, always, never
}

/// A one-line progress bar on stderr, shown only on a terminal and only once the work has
/// taken more than a second (docs/spec.md §12: never on a pipe).
final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let started = Date()
    private var shown = false
    private let lock = NSLock()
    private let enabled =
        Terminal.stderrIsTTY && ProcessInfo.processInfo.environment["NOTES_NO_PROGRESS"] == nil

    init(label: String) { self.label = label }

    var update: @Sendable (_ progress: RefreshProgress) -> Void {
        { [self] progress in
            self.draw(done: progress.done, total: progress.total, bytes: progress.bytes)
        }
    }

    func draw(done: Int, total: Int, bytes: Int) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        guard shown || Date().timeIntervalSince(started) > 1 else { return }
        shown = true
        let width = 30
        let filled = total > 0 ? min(width, done * width / total) : width
        let bar =
            String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let line = String(
            format: "\r%@ %@ %d/%d files  %.1f MB", label, bar, done, total, Double(bytes) / 1e6)
        StandardStreams.writeError(line)
    }

    /// An embedding pass's progress, with its rate and the time left.
    func drawEmbedding(_ progress: EmbeddingProgress) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let elapsed = Date().timeIntervalSince(started)
        guard shown || elapsed > 1 else { return }
        shown = true
        let width = 30
        let done = progress.sectionsDone
        let total = max(progress.sectionsTotal, 1)
        // Bar and time left follow the estimated work, not the count of sections.
        let workDone = progress.workTotal > 0 ? progress.workDone : done
        let workTotal = progress.workTotal > 0 ? progress.workTotal : total
        let filled = min(width, workDone * width / workTotal)
        let bar =
            String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        var eta = ""
        if workDone > 0 && done < total {
            let left = Int(elapsed / Double(workDone) * Double(workTotal - workDone))
            eta = left >= 60 ? "  \(left / 60) min \(left % 60) s left" : "  \(left) s left"
        }
        let line = String(
            format: "\r%@ %@ %d/%d sections  %d passages%@\u{1B}[K", label, bar, done, total,
            progress.chunks, eta)
        StandardStreams.writeError(line)
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if shown { StandardStreams.writeError("\r\u{1B}[2K") }
    }
}

/// Encodes results for `--json` (one pretty document) and `--jsonl` (one object a line).
enum JSONOutput {
    static func document<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    static func line<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}

/// A count with thousands separators: 12345 → "12,345".
func grouped(_ n: Int) -> String {
    let digits = String(n)
    var out = ""
    for (i, c) in digits.reversed().enumerated() {
        if i > 0 && i % 3 == 0 && c != "-" { out.append(",") }
        out.append(c)
    }
    return String(out.reversed())
}

/// A size for people: 1.2 MB, 340 KB, 12 B.
func humanSize(_ bytes: Int) -> String {
    if bytes >= 1_000_000 { return String(format: "%.1f MB", Double(bytes) / 1e6) }
    if bytes >= 1_000 { return String(format: "%.0f KB", Double(bytes) / 1e3) }
    return "\(bytes) B"
}
