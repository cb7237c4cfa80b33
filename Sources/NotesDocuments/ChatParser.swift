import Foundation
import NotesCore

/// Reads `Chats/*.json` conversations (docs/spec.md §9.3): a title and one section per message,
/// titled by role and number ("user #1"), pointing at the line where the message starts.
///
/// Accepts the checkpoint format (`{"title": …, "messages": [...]}`) and a bare array of
/// messages; `content` may be a string or a list of blocks (`text`, `tool_use`,
/// `tool_result`), as in the Anthropic and OpenAI wire formats.
enum ChatParser {
    static func parse(_ text: String, path: String, fallbackTitle: String) -> ParsedDocument {
        var document = ParsedDocument(title: fallbackTitle)
        guard
            let object = try? JSONSerialization.jsonObject(
                with: Data(text.utf8), options: [.fragmentsAllowed])
        else {
            document.diagnostics.append(
                Diagnostic(
                    path: path, code: .malformedChat,
                    message: "chat file is not valid JSON; indexed as text"))
            document.sections = TextSectioner.sections(of: text)
            return document
        }
        let messages: [Any]
        if let dict = object as? [String: Any] {
            if let title = dict["title"] as? String, !title.isEmpty { document.title = title }
            messages = dict["messages"] as? [Any] ?? []
            if let createdBy = (dict["created_by"] as? String).flatMap({ Actor(rawValue: $0) }) {
                document.provenance.createdBy = createdBy
            }
            document.provenance.createdAt = dict["created_at"] as? String
        } else {
            messages = object as? [Any] ?? []
        }
        let roleLines = lineNumbers(ofKey: "\"role\"", in: text)
        var number = 0
        for case let message as [String: Any] in messages {
            number += 1
            let role = message["role"] as? String ?? "message"
            let body = messageText(message["content"]) + toolCallsText(message["tool_calls"])
            let line = number - 1 < roleLines.count ? roleLines[number - 1] : 1
            guard !body.isEmpty else { continue }
            document.sections.append(
                DocumentSection(
                    heading: "\(role) #\(number)", level: 0, line: line, text: body,
                    lineAligned: false))
        }
        return document
    }

    private static func messageText(_ content: Any?) -> String {
        if let s = content as? String { return s }
        guard let blocks = content as? [Any] else { return "" }
        var parts: [String] = []
        for case let block as [String: Any] in blocks {
            if let text = block["text"] as? String {
                parts.append(text)
            } else if let inner = block["content"] {
                parts.append(messageText(inner))
            } else if let name = block["name"] as? String {
                let input = (block["input"]).flatMap {
                    try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys])
                }
                parts.append("\(name) " + (input.map { String(decoding: $0, as: UTF8.self) } ?? ""))
            }
        }
        return parts.filter { !$0.isEmpty }.joined(separator: "\n")
    }

    private static func toolCallsText(_ calls: Any?) -> String {
        guard let calls = calls as? [[String: Any]] else { return "" }
        let parts = calls.compactMap { call -> String? in
            guard let function = call["function"] as? [String: Any],
                let name = function["name"] as? String
            else { return nil }
            return "\(name) \(function["arguments"] as? String ?? "")"
        }
        return parts.isEmpty ? "" : "\n" + parts.joined(separator: "\n")
    }

    /// 1-based lines on which `key` occurs, in order (each message has one "role").
    private static func lineNumbers(ofKey key: String, in text: String) -> [Int] {
        var result: [Int] = []
        let needle = Array(key.utf8)
        let bytes = Array(text.utf8)
        var line = 1
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A {
                line += 1
            } else if bytes[i] == needle[0], i + needle.count <= bytes.count,
                Array(bytes[i..<(i + needle.count)]) == needle
            {
                result.append(line)
                i += needle.count
                continue
            }
            i += 1
        }
        return result
    }
}
