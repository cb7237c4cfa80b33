import Dispatch
import Foundation
import NotesTools

/// Answers well-formed `tools/call` requests straight from the transport, without the
/// SDK's generic request path.
///
/// For every request the SDK (0.12.1) re-encodes the message and decodes it into the typed
/// request, then encodes the handler's result and decodes it back into its `Value` type,
/// which tries each JSON type in turn (a thrown error per miss) and runs a data-URL regex
/// on every string. For a search answer that round trip cost more than the search
/// itself (docs/performance-history.md). The tools, their arguments and their results
/// are exactly those of the SDK path; anything this does not recognise (a batch, a
/// notification, missing `name`, arguments that are not an object) still goes to the SDK
/// and gets the SDK's answer. Calls run one at a time on the server's tool queue, as on
/// the SDK path.
struct ToolCallShortcut: Sendable {
    let toolbox: Toolbox
    let queue: DispatchQueue
    let consent: PersonConsent

    private struct Request: Decodable {
        let jsonrpc: String
        let params: Params
        struct Params: Decodable {
            let name: String
            let arguments: [String: JSONValue]?
        }
    }

    /// Takes `message` when it is a `tools/call` request this can answer: runs the tool on
    /// the queue and hands the response to `reply`, returning true. Returns false, having
    /// done nothing, for anything else.
    func take(
        _ message: Data, screen: MessageScreen, reply: @escaping @Sendable (Data) -> Void
    ) -> Bool {
        guard screen.method == "tools/call", let id = screen.id,
            let request = try? JSONDecoder().decode(Request.self, from: message),
            request.jsonrpc == "2.0"
        else { return false }
        let toolbox = self.toolbox
        let consent = self.consent
        queue.async {
            let outcome = consent.call(
                toolbox, request.params.name, arguments: request.params.arguments)
            let response = MessageScreen.toolResult(
                id: id, json: outcome.json, isError: outcome.isError)
            // Written before the next call starts, so that draining the queue at shutdown
            // also means every answer is out.
            reply(response)
        }
        return true
    }
}
