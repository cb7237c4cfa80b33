import Foundation
import MCP
import NotesTools

/// Conversions between the SDK's `Value` and the tool layer's ``JSONValue``.
enum ValueBridge {
    static func json(_ value: Value) -> JSONValue {
        switch value {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        // The SDK turns strings that look like data URLs into data; give the agent's text back.
        case .data(let mimeType, let data): .string(data.dataURLEncoded(mimeType: mimeType))
        case .array(let a): .array(a.map(json))
        case .object(let o): .object(o.mapValues(json))
        }
    }

    static func value(_ json: JSONValue) -> Value {
        switch json {
        case .null: .null
        case .bool(let b): .bool(b)
        case .int(let i): .int(i)
        case .double(let d): .double(d)
        case .string(let s): .string(s)
        case .array(let a): .array(a.map(value))
        case .object(let o): .object(o.mapValues(value))
        }
    }
}
