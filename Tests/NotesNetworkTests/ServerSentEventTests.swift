import NotesNetwork
import Testing

@Suite("Server-sent events")
struct ServerSentEventTests {
    @Test("events split across arbitrary chunk boundaries come out whole")
    func chunking() {
        let stream =
            "event: message_start\ndata: {\"a\":1}\n\n: a comment\ndata: first\ndata: second\n\nevent: ping\ndata: {}\n\n"
        let bytes = Array(stream.utf8)
        for size in [1, 2, 3, 7, 64, bytes.count] {
            var parser = ServerSentEventParser()
            var events: [ServerSentEvent] = []
            var i = 0
            while i < bytes.count {
                events += parser.feed(Array(bytes[i..<min(i + size, bytes.count)]))
                i += size
            }
            events += parser.finish()
            #expect(
                events == [
                    ServerSentEvent(event: "message_start", data: "{\"a\":1}"),
                    ServerSentEvent(data: "first\nsecond"),
                    ServerSentEvent(event: "ping", data: "{}"),
                ], "chunk size \(size)")
        }
    }

    @Test("CRLF and lone CR end lines; a UTF-8 character split between chunks survives")
    func lineEndings() {
        var parser = ServerSentEventParser()
        let text = Array("data: caf\u{e9} \u{1F40B}\r\n\r\ndata: x\r\rdata:no-space\n\n".utf8)
        var events: [ServerSentEvent] = []
        for byte in text { events += parser.feed([byte]) }
        #expect(
            events == [
                ServerSentEvent(data: "caf\u{e9} \u{1F40B}"), ServerSentEvent(data: "x"),
                ServerSentEvent(data: "no-space"),
            ])
    }

    @Test("an event without its closing blank line is delivered by finish()")
    func unterminated() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: [DONE]".utf8)).isEmpty)
        #expect(parser.finish() == [ServerSentEvent(data: "[DONE]")])
    }

    @Test("URL parts: scheme, host (without user info), path")
    func urlParts() {
        let parts = URLParts("HTTPS://user:pw@Example.org:8080/a/b.txt?q=1#f")
        #expect(parts.scheme == "https")
        #expect(parts.host == "example.org:8080")
        #expect(parts.path == "/a/b.txt")
        #expect(URLParts("http://h").path == "/")
        #expect(URLParts("not a url").scheme == "")
    }
}
