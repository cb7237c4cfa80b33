import Foundation
import NotesAgent
import NotesCore
import NotesTools

/// Renders a run of the built-in agent in the terminal: the model's text streamed to
/// stdout as it arrives; tool calls (one line each, with their outcome), usage, notices
/// and questions on stderr, so `notes agent … > answer.md` keeps only the answer.
final class AgentTranscript: AgentObserver, @unchecked Sendable {
    let interactive: Bool
    let textToStderr: Bool
    let config: AgentConfig
    private let lock = NSLock()
    private var asking = false
    private var midLine = false

    init(interactive: Bool, textToStderr: Bool, config: AgentConfig) {
        self.interactive = interactive
        self.textToStderr = textToStderr
        self.config = config
    }

    /// Whether the person is being asked a question right now (a signal then exits at once).
    var isAsking: Bool {
        lock.lock()
        defer { lock.unlock() }
        return asking
    }

    private func err(_ text: String) {
        StandardStreams.writeError(text)
    }

    private func endLine() {
        if midLine {
            if textToStderr { err("\n") } else { Terminal.write("\n") }
            midLine = false
        }
    }

    func begin(session: ChatSession, provider: any ModelProvider, resumed: Bool) {
        let what =
            resumed
            ? "resuming \(session.id) (\(session.turns) turns so far)" : "session \(session.id)"
        err(
            Terminal.style(
                "\(what) · \(provider.name) \(session.model) · budget \(session.maxTurns) turns, \(grouped(session.maxTokens)) tokens",
                .dim) + "\n")
    }

    func text(_ piece: String) {
        if textToStderr { err(piece) } else { Terminal.write(piece) }
        midLine = !piece.hasSuffix("\n")
    }

    func turnEnded(session: ChatSession) {
        endLine()
        err(
            Terminal.style(
                "  [turn \(session.turns) · \(grouped(session.usage.input)) in / \(grouped(session.usage.output)) out\(costText(session))]",
                .dim) + "\n")
    }

    func toolStarted(_ call: ToolCall) {
        endLine()
    }

    func toolFinished(_ call: ToolCall, outcome: ToolOutcome, note: String?) {
        endLine()
        let subject = Self.subject(of: call)
        if outcome.isError {
            let object =
                (try? JSONValue.parse(outcome.json)).flatMap { value -> [String: JSONValue]? in
                    if case .object(let o) = value { o } else { nil }
                } ?? [:]
            var message = ""
            if case .string(let m)? = object["message"] { message = m }
            err(
                "  " + Terminal.style("✗", .red) + " \(call.name)\(subject) "
                    + Terminal.style(
                        "\(outcome.errorCode ?? "error"): \(message.prefix(160))", .red) + "\n")
        } else {
            err(
                "  " + Terminal.style("✓", .green) + " \(call.name)\(subject)"
                    + Terminal.style(Self.summary(of: outcome), .dim) + "\n")
        }
        if let note, !outcome.isError || outcome.errorCode != "user_edited" {
            err(Terminal.style("    \(note)", .dim) + "\n")
        }
    }

    func notice(_ message: String) {
        endLine()
        err(Terminal.style("  notes: \(message)", .yellow) + "\n")
    }

    func ask(_ question: UserQuestion) -> UserDecision? {
        guard interactive else { return nil }
        endLine()
        lock.lock()
        asking = true
        lock.unlock()
        defer {
            lock.lock()
            asking = false
            lock.unlock()
        }
        err(
            "\n"
                + Terminal.style(
                    "The agent wants to change \(question.path), which has your edits.", .yellow)
                + "\n")
        if let diff = question.diff, !diff.isEmpty {
            for line in diff.split(separator: "\n", omittingEmptySubsequences: false).prefix(60) {
                let style: Terminal.Style? =
                    line.hasPrefix("+") ? .green : line.hasPrefix("-") ? .red : nil
                err((style.map { Terminal.style(String(line), $0) } ?? String(line)) + "\n")
            }
        } else if !question.lostLines.isEmpty {
            err("It would remove or change these lines of yours:\n")
            for line in question.lostLines.prefix(20) {
                err(Terminal.style("- " + line, .red) + "\n")
            }
        }
        let labels: [UserDecision: String] = [
            .yes: "[y]es, replace my edits", .no: "[n]o, keep them", .merge: "[m]erge both",
            .propose: "[p]ropose (review later)",
        ]
        let prompt = question.choices.compactMap { labels[$0] }.joined(separator: " / ") + ": "
        while true {
            err(prompt)
            guard let line = readLine() else {
                err("\n")
                return nil
            }
            let answer = line.trimmingCharacters(in: .whitespaces).lowercased()
            if let decision = question.choices.first(where: {
                answer == $0.rawValue || (answer.count == 1 && $0.rawValue.hasPrefix(answer))
            }) {
                return decision
            }
        }
    }

    func end(session: ChatSession) {
        endLine()
        let state =
            session.state == .completed
            ? Terminal.style("done", .green) : Terminal.style(session.state.rawValue, .yellow)
        err(
            "\(state) · \(session.turns) turns · \(grouped(session.usage.input)) in / \(grouped(session.usage.output)) out\(costText(session)) · Chats/\(session.id).json\n"
        )
        if session.state != .completed, session.state.isResumable {
            err(Terminal.style("  resume with: notes agent --resume \(session.id)", .dim) + "\n")
        }
    }

    private func costText(_ session: ChatSession) -> String {
        session.usage.cost(at: config.prices[session.model]).map { String(format: " · ~$%.4f", $0) }
            ?? " · cost unknown (no price for \(session.model) in config)"
    }

    /// The argument that says what a call is about: a path, a query, a URL, a fact.
    static func subject(of call: ToolCall) -> String {
        guard case .object(let input) = call.input else { return "" }
        for key in ["path", "query", "url", "from", "fact", "template"] {
            if case .string(let value)? = input[key] {
                let shown = value.count > 60 ? String(value.prefix(60)) + "…" : value
                return " " + (key == "query" || key == "fact" ? "\"\(shown)\"" : shown)
            }
        }
        return ""
    }

    /// A few words on a successful result: hits, lines, version, duplicate, cached.
    static func summary(of outcome: ToolOutcome) -> String {
        guard case .object(let result)? = try? JSONValue.parse(outcome.json) else { return "" }
        var parts: [String] = []
        if case .array(let hits)? = result["hits"] { parts.append("\(hits.count) hits") }
        if case .array(let entries)? = result["entries"] {
            parts.append("\(entries.count) entries")
        }
        if case .int(let lines)? = result["lines"], case .int(let total)? = result["total_lines"] {
            parts.append("\(lines) of \(total) lines")
        }
        if case .bool(true)? = result["created"] { parts.append("created") }
        if case .bool(true)? = result["merged"] { parts.append("merged with your edits") }
        if case .bool(true)? = result["duplicate"] { parts.append("already known") }
        if case .bool(true)? = result["cached"] { parts.append("unchanged (cached)") }
        if case .string(let proposal)? = result["proposal"] { parts.append("proposal \(proposal)") }
        if case .string(let version)? = result["version"] { parts.append("version \(version)") }
        return parts.isEmpty ? "" : "  " + parts.joined(separator: ", ")
    }
}
