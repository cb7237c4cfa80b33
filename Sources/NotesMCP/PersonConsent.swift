import Dispatch
import Foundation
import MCP
import NotesTools

/// Asks the person inside the client before the agent's change overwrites their lines
/// (issue 32 item 7, MCP elicitation). A `user_edited` refusal of a tool that takes
/// `confirm_user_edits` becomes a question to the person when the client declared the
/// elicitation capability: their yes runs the call again with `confirm_user_edits: true`;
/// their no, a cancel or no answer returns the refusal, saying they were asked. A client
/// without elicitation gets the refusal as before (the agent asks the person in its chat).
struct PersonConsent: Sendable {
    let server: Server

    /// The tools whose `user_edited` refusal the person can lift.
    static let tools: Set<String> = ["write_file", "edit_file", "delete_file"]
    /// How long a question waits for the person before the refusal stands.
    static let patience: DispatchTimeInterval = .seconds(600)

    /// Runs tool `name` (on the tool queue, which waits while the person is asked).
    func call(_ toolbox: Toolbox, _ name: String, arguments: [String: JSONValue]?) -> ToolOutcome {
        let outcome = toolbox.call(name, arguments: arguments)
        guard Self.tools.contains(name), outcome.errorCode == "user_edited",
            arguments?["confirm_user_edits"] != .bool(true),
            case .object(var refusal)? = try? JSONValue.parse(outcome.json)
        else { return outcome }
        guard let allowed = ask(Self.question(refusal, tool: name)) else { return outcome }
        if allowed {
            var again = arguments ?? [:]
            again["confirm_user_edits"] = .bool(true)
            return toolbox.call(name, arguments: again)
        }
        if case .string(let message)? = refusal["message"] {
            refusal["message"] = .string(
                "The person was asked in their client and did not allow it; their text is kept. "
                    + message)
        }
        refusal["person_asked"] = .string("declined")
        guard let json = try? JSONEncoder().encode(JSONValue.object(refusal)) else {
            return outcome
        }
        return ToolOutcome(json: json, isError: true)
    }

    /// What the person reads: which file, what the change would remove, and the question.
    static func question(_ refusal: [String: JSONValue], tool: String) -> String {
        var path = "the file"
        if case .string(let p)? = refusal["path"] { path = p }
        var lines: [String] = []
        if case .array(let lost)? = refusal["lost_lines"] {
            for case .string(let line) in lost.prefix(12) { lines.append("  " + line) }
            if lost.count > 12 { lines.append("  … and \(lost.count - 12) more") }
        }
        let verb = tool == "delete_file" ? "delete \(path)" : "change \(path)"
        return "The agent wants to \(verb), which would remove or change lines you wrote:\n"
            + lines.joined(separator: "\n")
            + "\nAllow it? (History keeps your text either way: notes restore brings it back.)"
    }

    /// The person's answer: true to allow, false for no (declined, cancelled, no answer in
    /// time), nil when the client cannot ask (no elicitation capability, or it failed).
    func ask(_ message: String) -> Bool? {
        final class Answer: @unchecked Sendable {
            var value: Bool??
        }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let server = self.server
        Task {
            do {
                let result = try await server.requestElicitation(
                    message: message,
                    requestedSchema: .init(
                        properties: [
                            "allow": .object([
                                "type": .string("boolean"), "title": .string("Allow the change"),
                                "default": .bool(false),
                            ])
                        ],
                        required: ["allow"]))
                answer.value = .some(
                    result.action == .accept && result.content?["allow"] == .bool(true))
            } catch {
                answer.value = .some(nil)
            }
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.patience) == .success else { return false }
        return answer.value ?? nil
    }
}
