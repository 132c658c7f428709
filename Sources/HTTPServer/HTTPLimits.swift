/// The bounds a server keeps every client within, so that no client can take more than its share
/// of memory, connections or threads. The defaults suit a sync service on a small machine.
public struct HTTPLimits: Sendable {
    /// The longest request body accepted. A longer one is answered 413 with a one-line JSON error
    /// and the handler is not called: at once when `Content-Length` says so (the rest is not
    /// read, and the connection is closed), otherwise once the body has been read and dropped.
    public var maxBodyBytes = 1 << 20
    /// The memory a connection may use for the request line and headers (libmicrohttpd's
    /// per-connection memory limit, which also holds its buffers). A request whose head does not
    /// fit is answered 431 (or 413, or 414 for a long request line) and closed.
    public var maxHeaderBytes = 16 << 10
    /// Connections served at once. Requests on connections beyond it are answered 503 with
    /// `Retry-After: 1` and closed, without calling the handler, while the server holds up to 32
    /// more open; past that, new connections are accepted and closed at once, with no answer.
    public var maxConnections = 256
    /// How long a client may stay silent, mid-request or between requests, before its connection
    /// is closed (whole seconds, at least one). An open event stream does not time out while it
    /// waits: it is kept alive by comments.
    public var connectionTimeout: Duration = .seconds(30)
    /// How long an event stream may go without sending anything: after that it sends the comment
    /// line `:\n\n`, which keeps proxies from closing it, and which is how a client that left is
    /// noticed (the write fails), so that the stream's `onClose` runs.
    public var streamKeepAlive: Duration = .seconds(15)
    /// Threads running handlers, one request at a time each; as many again read requests and
    /// write answers (libmicrohttpd's thread pool), so a handler that waits holds up no other
    /// connection. A waiting event stream holds none.
    public var threads = 4
    /// How long a request may wait for a thread to run its handler. A request still waiting
    /// after that is answered 503 with `Retry-After: 1` without being run: nothing it asked
    /// for is done, and its client learns so before its own deadline (a replica's is 30 s)
    /// rather than giving up on work the server then does anyway.
    public var queueWait: Duration = .seconds(10)

    /// The default limits.
    public init() {}
}

/// Where a server's TLS certificate and private key are: paths of PEM files, read when it starts.
public struct TLSFiles: Sendable {
    /// The certificate (chain) in PEM.
    public var certificate: String
    /// The private key in PEM, not encrypted.
    public var key: String

    /// The certificate and key at these paths.
    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}

/// Why a server could not start, in one line: "cannot listen on 127.0.0.1:8080: address in use",
/// "cannot read the TLS certificate cert.pem: no such file".
public struct HTTPServerError: Error, CustomStringConvertible {
    /// The line shown to a person.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
