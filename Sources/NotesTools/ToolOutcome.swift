import Foundation
import NotesCore

/// What a tool call answers: a JSON object, and whether it is an error (docs/spec.md §7: errors
/// are results with `isError: true` and `{code, message, ...}`, never protocol failures).
public struct ToolOutcome: Sendable {
    /// The result as JSON text (always an object).
    public var json: Data
    public var isError: Bool

    public var text: String { String(decoding: json, as: UTF8.self) }

    public init(json: Data, isError: Bool) {
        self.json = json
        self.isError = isError
    }

    /// The error's stable `code`, when this is an error.
    public var errorCode: String? {
        guard isError, case .object(let object)? = try? JSONValue.parse(json),
            case .string(let code)? = object["code"]
        else { return nil }
        return code
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The same answer with a `config_warning` field (the object's other fields unchanged).
    func adding(configWarning warning: String) -> ToolOutcome {
        guard json.first == UInt8(ascii: "{"), let text = try? Self.encoder.encode(warning) else {
            return self
        }
        var out = Data("{\"config_warning\":".utf8) + text
        let rest = json.dropFirst()
        if rest.first != UInt8(ascii: "}") { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: rest)
        return ToolOutcome(json: out, isError: isError)
    }

    /// A successful result.
    static func success(_ value: some Encodable) -> ToolOutcome {
        do {
            return ToolOutcome(json: try encoder.encode(value), isError: false)
        } catch {
            return failure(
                NotesError(
                    .internal, "could not encode the result: \(error)", hint: "report this as a bug"
                ))
        }
    }

    /// An error result: `code`, `message` (what happened), `hint` (what to do next) and
    /// the data the agent needs (versions, diff, lost lines, options), flattened.
    public static func failure(_ error: NotesError) -> ToolOutcome {
        var object: [String: JSONValue] = [
            "code": .string(error.code.rawValue), "message": .string(error.message),
        ]
        if let hint = error.hint, !hint.isEmpty { object["hint"] = .string(hint) }
        if let details = error.details, let data = try? encoder.encode(details),
            case .object(let fields)? = try? JSONValue.parse(data)
        {
            for (key, value) in fields where object[key] == nil { object[key] = value }
        }
        let data =
            (try? encoder.encode(JSONValue.object(object)))
            ?? Data(#"{"code":"internal","message":"unencodable error"}"#.utf8)
        return ToolOutcome(json: data, isError: true)
    }
}
