/// One HTTP request as the handler sees it: the whole of it, body included, read before the
/// handler is called.
public struct HTTPRequest: Sendable {
    /// The method as sent: "GET", "POST", ...
    public var method: String
    /// The path as sent, still percent-encoded, without the query ("/lists/Tasks%20A").
    public var path: String
    /// The query's parameters, percent-decoded; a name given without `=` has the value "".
    /// When a name is given twice, the last value is kept.
    public var query: [String: String]
    /// The request's headers, their names lowercased; a header given twice has its values
    /// joined by ", " (as HTTP allows for lists).
    public var headers: [String: String]
    /// The body, at most `HTTPLimits.maxBodyBytes` long (a longer one never reaches the handler).
    public var body: [UInt8]
    /// Whether the request came over TLS (the server was started with `TLSFiles`).
    public var isTLS: Bool
    /// The client's IP address as text ("127.0.0.1", "::1"), when known.
    public var remoteAddress: String?

    /// A request made of its parts (for tests of handlers, which need no server).
    public init(
        method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = [],
        isTLS: Bool = false, remoteAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        self.body = body
        self.isTLS = isTLS
        self.remoteAddress = remoteAddress
    }

    /// The value of the header `name`, whatever its case; `nil` when it was not sent.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}
