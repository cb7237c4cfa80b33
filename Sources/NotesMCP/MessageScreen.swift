import Foundation

/// A byte-level look at one incoming JSON-RPC message before the SDK decodes it: how
/// deeply it nests, and its top-level `id` and `method`. Messages nested past
/// ``maxDepth`` are answered here (the JSON decoder gives up on them without telling the
/// client which request failed), so a hostile argument gets a clear answer, not silence.
struct MessageScreen {
    /// Deepest nesting passed on to the SDK. Real MCP messages nest under 10 levels.
    static let maxDepth = 64

    /// The request's raw `id` token (`7` or `"abc"`), when it could be found.
    var id: String?
    /// The request's method, when it could be found.
    var method: String?
    var depth = 0

    /// Scans `bytes` (all or the first part of a message).
    init(_ bytes: some Collection<UInt8>) {
        var depth = 0
        var inString = false
        var escaped = false
        var stringStart: Int?
        var lastKeyAtTop: String?
        var expectingValueFor: String?
        var scalarStart: Int?
        let array = Array(bytes)
        var i = 0
        func finishScalar(_ end: Int) {
            if let start = scalarStart, let key = expectingValueFor {
                let token = String(decoding: array[start..<end], as: UTF8.self).trimmingCharacters(
                    in: .whitespaces)
                if key == "id" && id == nil { id = token }
                expectingValueFor = nil
            }
            scalarStart = nil
        }
        while i < array.count {
            let b = array[i]
            if inString {
                if escaped {
                    escaped = false
                } else if b == 0x5C {
                    escaped = true
                } else if b == 0x22 {
                    inString = false
                    if depth == 1, let start = stringStart {
                        let text = String(decoding: array[(start + 1)..<i], as: UTF8.self)
                        if let key = expectingValueFor {
                            if key == "id" && id == nil { id = "\"" + text + "\"" }
                            if key == "method" && method == nil { method = text }
                            expectingValueFor = nil
                        } else {
                            lastKeyAtTop = text
                        }
                    }
                }
                i += 1
                continue
            }
            switch b {
            case 0x22:  // "
                inString = true
                stringStart = i
            case 0x7B, 0x5B:  // { [
                expectingValueFor = nil
                depth += 1
                self.depth = max(self.depth, depth)
            case 0x7D, 0x5D:  // } ]
                if depth == 1 { finishScalar(i) }
                depth -= 1
            case 0x3A:  // :
                if depth == 1, let key = lastKeyAtTop {
                    expectingValueFor = key
                    lastKeyAtTop = nil
                    scalarStart = i + 1
                }
            case 0x2C:  // ,
                if depth == 1 { finishScalar(i) }
                expectingValueFor = nil
            default:
                break
            }
            if b != 0x3A && scalarStart != nil && (b == 0x22 || b == 0x7B || b == 0x5B) {
                scalarStart = nil
            }
            i += 1
        }
    }

    /// A `tools/call` response carrying a tool's result (`json`, an object) both as text and
    /// as structured content, as the SDK path answers it.
    static func toolResult(id: String, json: Data, isError: Bool) -> Data {
        let text = String(decoding: json, as: UTF8.self)
        let content =
            (try? JSONSerialization.data(
                withJSONObject: [["type": "text", "text": text]], options: [.withoutEscapingSlashes]
            )) ?? Data("[]".utf8)
        var response = Data(#"{"jsonrpc":"2.0","id":\#(id),"result":{"content":"#.utf8)
        response.append(content)
        if json.first == UInt8(ascii: "{") {
            response.append(Data(#","structuredContent":"#.utf8))
            response.append(json)
        }
        response.append(Data(#","isError":\#(isError)}}"#.utf8))
        return response
    }

    /// The answer to a message refused before decoding: a tool result with `isError` for
    /// `tools/call` (so the agent sees `{code, message}` like any tool error), else a
    /// JSON-RPC error.
    static func refusal(id: String?, method: String?, code: String, message: String, hint: String)
        -> Data
    {
        let idToken = id ?? "null"
        let error: [String: String] = ["code": code, "message": message, "hint": hint]
        let errorJSON =
            (try? JSONSerialization.data(withJSONObject: error, options: [.sortedKeys]))
            ?? Data("{}".utf8)
        if method == "tools/call", let id {
            return toolResult(id: id, json: errorJSON, isError: true)
        }
        let messageJSON =
            (try? JSONSerialization.data(withJSONObject: [message], options: [])).map {
                String(decoding: $0.dropFirst().dropLast(), as: UTF8.self)
            } ?? "\"refused\""
        return Data(
            #"{"jsonrpc":"2.0","id":\#(idToken),"error":{"code":-32600,"message":\#(messageJSON)}}"#
                .utf8)
    }
}
