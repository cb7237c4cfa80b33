import NotesCore

/// A file's bytes as text for indexing: BOM removed, invalid UTF-8 replaced (and reported),
/// binary files refused. Never used to write back: edits work on the original bytes.
public struct DecodedText: Sendable {
    /// The text, without a leading BOM.
    public var text: String
    /// Problems found (invalid UTF-8).
    public var diagnostics: [Diagnostic]

    /// Why bytes cannot be indexed as text.
    public enum Refusal: Error, Equatable, Sendable {
        case binary
        case utf16
    }

    /// Decodes `bytes` of the file at `path`.
    public static func decode(_ bytes: [UInt8], path: String) throws(Refusal) -> DecodedText {
        var start = 0
        if bytes.count >= 2,
            (bytes[0] == 0xFF && bytes[1] == 0xFE) || (bytes[0] == 0xFE && bytes[1] == 0xFF)
        {
            throw .utf16
        }
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { start = 3 }
        let probe = bytes[start..<min(bytes.count, start + 8192)]
        if probe.contains(0) { throw .binary }
        let body = bytes[start...]
        if let valid = String(validating: body, as: UTF8.self) {
            return DecodedText(text: valid, diagnostics: [])
        }
        let text = String(decoding: body, as: UTF8.self)
        let line = Workspace.firstInvalidUTF8Line(body)
        return DecodedText(
            text: text,
            diagnostics: [
                Diagnostic(
                    path: path, code: .invalidUTF8,
                    message: "file is not valid UTF-8; invalid bytes were indexed as U+FFFD",
                    line: line)
            ])
    }

}
