/// Turns a byte stream into server-sent events as chunks arrive, whatever the chunk
/// boundaries (mid-line, mid-UTF-8 character). Lines end in LF, CRLF or CR; a blank line
/// ends an event; `:` lines are comments; `id` and `retry` are ignored.
///
/// Related specification: https://html.spec.whatwg.org/multipage/server-sent-events.html
public struct ServerSentEventParser: Sendable {
    private var pending: [UInt8] = []
    private var event = ""
    private var data: [String] = []
    private var sawCarriageReturn = false

    public init() {}

    /// Feeds bytes; returns the events they complete.
    public mutating func feed(_ bytes: [UInt8]) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if byte == 0x0A, sawCarriageReturn {  // the LF of a CRLF
                sawCarriageReturn = false
                continue
            }
            sawCarriageReturn = byte == 0x0D
            if byte == 0x0A || byte == 0x0D {
                if let finished = line(String(decoding: pending, as: UTF8.self)) {
                    events.append(finished)
                }
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(byte)
            }
        }
        return events
    }

    /// Ends the stream: an event without its closing blank line still counts.
    public mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if !pending.isEmpty, let finished = line(String(decoding: pending, as: UTF8.self)) {
            events.append(finished)
        }
        pending.removeAll()
        if let finished = line("") { events.append(finished) }
        return events
    }

    private mutating func line(_ text: String) -> ServerSentEvent? {
        if text.isEmpty {
            defer {
                event = ""
                data = []
            }
            guard !data.isEmpty else { return nil }
            return ServerSentEvent(event: event, data: data.joined(separator: "\n"))
        }
        if text.hasPrefix(":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": event = String(value)
        case "data": data.append(String(value))
        default: break
        }
        return nil
    }
}
