/// One server-sent event: its `event:` name (empty when the server sent none) and its
/// `data:` lines joined with newlines.
public struct ServerSentEvent: Sendable, Equatable {
    public var event: String
    public var data: String

    public init(event: String = "", data: String) {
        self.event = event
        self.data = data
    }
}
