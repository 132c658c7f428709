/// What a handler answers: a status, headers and a body, either whole or a stream written later.
public struct HTTPResponse: Sendable {
    /// A response's body.
    public enum Body: Sendable {
        /// The whole body, known when the handler returns (copied to the server).
        case bytes([UInt8])
        /// A body written while the response is open, such as Server-Sent Events: sent chunked
        /// (HTTP/1.1) as the stream is given bytes, until it is finished or the client leaves.
        case stream(EventStream)
    }

    /// The status code (200, 404, ...).
    public var status: Int
    /// Headers to send, in order. The server adds `Content-Length` (or chunked
    /// `Transfer-Encoding`) and `Date` itself.
    public var headers: [(name: String, value: String)]
    /// The body.
    public var body: Body

    /// A response of `status` with `headers` and `body` (empty by default).
    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response: `text` as its body, `Content-Type: application/json`, and `headers` after it.
    public static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: .bytes(Array(text.utf8)))
    }

    /// A stream of Server-Sent Events: status 200, `Content-Type: text/event-stream` and
    /// `Cache-Control: no-store`, then `headers`.
    public static func eventStream(_ stream: EventStream, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store")] + headers, body: .stream(stream))
    }

    /// The one-line JSON error `{"error":"message"}` with `status`: what the server itself answers
    /// when a request breaks a limit.
    static func error(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, "{\"error\":\"\(message)\"}", headers: headers)
    }
}
