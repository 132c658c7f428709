import CMicroHTTPD
import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server (libmicrohttpd) that hands each request, whole, to one synchronous handler.
///
/// The handler runs on threads of the server's own (`HTTPLimits.threads`), apart from those that
/// read requests and write answers, so it may block, on SQLite for instance; it must not call
/// `stop()`. A request waits at most `HTTPLimits.queueWait` for one of them. Requests that break a
/// limit are answered by the server without calling it (`HTTPLimits` says how). Event streams
/// wait without a thread.
///
/// ```swift
/// let server = try HTTPServer(host: "127.0.0.1", port: 8080) { request in
///     .json(200, #"{"path":"\#(request.path)"}"#)
/// }
/// ```
public final class HTTPServer: Sendable {
    /// The port the server listens on: the one asked for, or the one chosen for port 0.
    public let port: UInt16
    let core: ServerCore
    let daemon: Mutex<DaemonHandle?>
    let keepAlive: KeepAliveTimer

    /// libmicrohttpd's daemon, stopped once.
    struct DaemonHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// Listens on `host:port` (port 0: any free port, read back from `port`), with TLS when
    /// `tls` names a certificate and key, and starts serving at once.
    ///
    /// Throws an `HTTPServerError` saying what failed: the address ("cannot listen on
    /// 127.0.0.1:8080: address in use") or a TLS file ("cannot read the TLS key key.pem: no such
    /// file").
    public init(
        host: String, port: UInt16, tls: TLSFiles? = nil, limits: HTTPLimits = HTTPLimits(),
        handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
    ) throws {
        var certificate: String?
        var key: String?
        if let tls {
            guard chttpd_has_tls() != 0 else { throw HTTPServerError("cannot serve TLS: this libmicrohttpd was built without it") }
            certificate = try readPEM(tls.certificate, what: "certificate")
            key = try readPEM(tls.key, what: "key")
        }
        let (socket, boundPort) = try listenSocket(host: host, port: port)
        let core = ServerCore(handler: handler, limits: limits, isTLS: tls != nil, certificate: certificate, key: key)
        // The daemon takes over a copy of the socket, so that ours can be shut down if it fails.
        var settings = chttpd_settings()
        settings.listen_socket = dup(socket)
        settings.threads = UInt32(clamping: max(1, limits.threads))
        settings.connection_limit = UInt32(clamping: max(1, limits.maxConnections) + ServerCore.connectionMargin)
        settings.connection_timeout = UInt32(clamping: wholeSeconds(limits.connectionTimeout))
        settings.connection_memory_limit = max(limits.maxHeaderBytes, 1024)
        settings.tls_certificate = UnsafePointer(core.certificate)
        settings.tls_key = UnsafePointer(core.key)
        settings.handler = accessHandler
        settings.completed = requestCompleted
        settings.connection = connectionNotified
        settings.uri = requestStarted
        settings.context = Unmanaged.passUnretained(core).toOpaque()
        guard let pointer = chttpd_start(&settings) else {
            shutdown(socket, Int32(SHUT_RDWR))
            close(socket)
            if let tls {
                throw HTTPServerError(
                    "cannot use the TLS certificate \(tls.certificate) with the key \(tls.key): they are not a matching PEM certificate and private key"
                )
            }
            throw HTTPServerError("cannot serve on \(hostAndPort(host, port)): the HTTP server did not start")
        }
        close(socket)
        self.port = boundPort
        self.core = core
        self.daemon = Mutex(DaemonHandle(pointer: pointer))
        self.keepAlive = KeepAliveTimer(core: core, interval: limits.streamKeepAlive)
    }

    deinit {
        stop()
    }

    /// Stops listening, ends every open event stream (running their `onClose` handlers), lets
    /// running handlers finish and closes every connection; returns when all of that is done.
    /// Calling it again does nothing. Must not be called from a handler.
    public func stop() {
        guard
            let handle = daemon.withLock({ handle in
                defer { handle = nil }
                return handle
            })
        else { return }
        core.stopping.store(true, ordering: .sequentiallyConsistent)
        // Each request being answered, or queued for an answer, is suspended: its handler ends
        // and resumes it before the daemon stops.
        core.pool.close()
        // Their answers are given the time to go out before the connections close.
        _ = core.answering.wait(timeout: .now() + .seconds(5))
        // libmicrohttpd must not be stopped with a suspended connection: each waiting stream is
        // resumed, and its reader ends it.
        for stream in core.streams.withLock({ Array($0.values) }) { stream.serverStopping() }
        MHD_stop_daemon(handle.pointer)
        keepAlive.cancel()
    }
}

/// Sends the keep-alive comments of quiet streams, from a timer of its own (not a task, which
/// handlers blocking the shared pool could hold up), three times a keep-alive interval.
final class KeepAliveTimer: Sendable {
    private let timer: Mutex<DispatchSourceTimer?>

    init(core: ServerCore, interval: Duration) {
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "HTTPServer.keep-alive"))
        let tick = max(interval / 3, .milliseconds(10))
        let (seconds, attoseconds) = tick.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        source.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds))
        source.setEventHandler { [weak core] in core?.keepStreamsAlive(interval: interval) }
        source.resume()
        timer = Mutex(source)
    }

    /// Stops the timer.
    func cancel() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}

/// What the C callbacks reach through their context pointer: the handler, the limits, the count
/// of open connections and the open event streams.
final class ServerCore: Sendable {
    /// How many connections libmicrohttpd holds beyond `maxConnections`, to answer them 503.
    static let connectionMargin = 32

    let handler: @Sendable (HTTPRequest) -> HTTPResponse
    let limits: HTTPLimits
    let isTLS: Bool
    /// Connections open now (libmicrohttpd's connection notifications).
    let openConnections = Atomic<Int>(0)
    let stopping = Atomic<Bool>(false)
    /// The event streams being sent, by identity, until their connection ends.
    let streams = Mutex<[ObjectIdentifier: EventStream]>([:])
    /// The threads that run the handler.
    let pool: HandlerPool
    /// Requests handed to the pool whose answers have not gone out (or whose connections have
    /// not ended): `stop()` gives them a moment.
    let answering = DispatchGroup()
    /// The PEM text given to libmicrohttpd, kept for the daemon's life.
    nonisolated(unsafe) let certificate: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) let key: UnsafeMutablePointer<CChar>?

    init(handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse, limits: HTTPLimits, isTLS: Bool, certificate: String?, key: String?) {
        self.handler = handler
        self.limits = limits
        self.isTLS = isTLS
        self.certificate = certificate.flatMap { strdup($0) }
        self.key = key.flatMap { strdup($0) }
        self.pool = HandlerPool(threads: limits.threads, queueWait: limits.queueWait)
    }

    deinit {
        free(certificate)
        free(key)
    }

    var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Sends a comment on every stream quiet for `interval`.
    func keepStreamsAlive(interval: Duration) {
        let now = ContinuousClock.now
        for stream in streams.withLock({ Array($0.values) }) { stream.keepAlive(now: now, interval: interval) }
    }
}

/// One request's state between libmicrohttpd's calls: the URI as sent, the body read so far, the
/// answer a pool thread leaves while the connection is suspended, and the stream it is answered
/// with. Only the connection's own thread touches it.
final class RequestContext {
    let uri: String
    var started = false
    var body: [UInt8] = []
    var tooLong = false
    var answer: PendingAnswer?
    /// Whether the request was handed to the pool (and counted in `ServerCore.answering`).
    var pooled = false
    var stream: EventStream?

    init(uri: String) {
        self.uri = uri
    }
}

/// The answer to a request whose connection is suspended, left by the pool thread that ran the
/// handler and taken by the connection's thread once it is resumed.
final class PendingAnswer: Sendable {
    private let response = Mutex<HTTPResponse?>(nil)

    func set(_ answer: HTTPResponse) { response.withLock { $0 = answer } }

    func take() -> HTTPResponse? { response.withLock { $0.take() } }
}

/// A suspended connection, resumed from a pool thread (libmicrohttpd allows that from any
/// thread).
struct SuspendedConnection: @unchecked Sendable {
    let connection: OpaquePointer

    func resume() { MHD_resume_connection(connection) }
}

// MARK: - libmicrohttpd's callbacks

/// Called first for each request, with the URI as sent: makes its context, released when the
/// request completes.
private let requestStarted: chttpd_uri_callback = { _, uri, _ in
    let context = RequestContext(uri: uri.map { String(cString: $0) } ?? "/")
    return Unmanaged.passRetained(context).toOpaque()
}

/// Counts open connections.
private let connectionNotified: MHD_NotifyConnectionCallback = { cls, _, _, code in
    guard let cls else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        core.openConnections.add(1, ordering: .relaxed)
    } else {
        core.openConnections.subtract(1, ordering: .relaxed)
    }
}

/// A request ended, answered or not: its stream (if any) is closed and its context released.
private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, contextPointer, _ in
    guard let cls, let contextPointer, let raw = contextPointer.pointee else { return }
    contextPointer.pointee = nil
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let context = Unmanaged<RequestContext>.fromOpaque(raw).takeRetainedValue()
    if context.pooled {
        core.answering.leave()
    }
    if let stream = context.stream {
        _ = core.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(stream)) }
        stream.connectionEnded()
    }
}

/// Called when the head has arrived, for each piece of the body, and once the body is whole.
private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, contextPointer in
    guard let cls, let connection, let contextPointer, let uploadSize else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if let raw = contextPointer.pointee, let answer = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue().answer {
        // Resumed by the pool thread that answered.
        let context = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        context.answer = nil
        guard let response = answer.take() else { return .NO }
        if case .stream = response.body {
            // A stream's answer goes on until it ends, which `stop()` sees to itself.
            context.pooled = false
            core.answering.leave()
        }
        return queue(response, on: connection, context: context, core: core)
    }
    if contextPointer.pointee == nil {
        contextPointer.pointee = Unmanaged.passRetained(RequestContext(uri: url.map { String(cString: $0) } ?? "/")).toOpaque()
    }
    let context = Unmanaged<RequestContext>.fromOpaque(contextPointer.pointee!).takeUnretainedValue()
    let limits = core.limits
    if !context.started {
        context.started = true
        if core.openConnections.load(ordering: .relaxed) > limits.maxConnections {
            let busy = HTTPResponse.error(503, "the server is busy; try again", headers: [("Retry-After", "1"), ("Connection", "close")])
            return queue(busy, on: connection, context: context, core: core)
        }
        if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
            let bytes = Int(String(cString: length)), bytes > limits.maxBodyBytes
        {
            return queue(bodyTooLong(limits), on: connection, context: context, core: core)
        }
        return .YES
    }
    if uploadSize.pointee > 0 {
        let count = uploadSize.pointee
        if !context.tooLong, let uploadData {
            if context.body.count + count > limits.maxBodyBytes {
                context.tooLong = true
                context.body = []
            } else {
                context.body.append(contentsOf: UnsafeRawBufferPointer(start: uploadData, count: count))
            }
        }
        uploadSize.pointee = 0
        return .YES
    }
    if context.tooLong {
        return queue(bodyTooLong(limits), on: connection, context: context, core: core)
    }
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: String(context.uri.prefix { $0 != "?" }),
        query: values(of: connection, kind: .GET_ARGUMENT_KIND, lowercased: false),
        headers: values(of: connection, kind: .HEADER_KIND, lowercased: true), body: context.body, isTLS: core.isTLS,
        remoteAddress: clientAddress(connection))
    context.body = []
    if core.isStopping {
        return queue(.error(503, "the server is stopping; try again", headers: [("Retry-After", "1")]), on: connection, context: context, core: core)
    }
    // The handler runs on a pool thread; the connection waits, suspended, for its answer.
    let answer = PendingAnswer()
    context.answer = answer
    let suspended = SuspendedConnection(connection: connection)
    MHD_suspend_connection(connection)
    let handler = core.handler
    context.pooled = true
    core.answering.enter()
    let queued = core.pool.submit { expired in
        answer.set(expired ? .error(503, "the server is busy; try again", headers: [("Retry-After", "1")]) : handler(request))
        suspended.resume()
    }
    if !queued {
        answer.set(.error(503, "the server is stopping; try again", headers: [("Retry-After", "1")]))
        suspended.resume()
    }
    return .YES
}

/// The 413 answer to a body over `maxBodyBytes`.
private func bodyTooLong(_ limits: HTTPLimits) -> HTTPResponse {
    .error(413, "the request body is longer than \(limits.maxBodyBytes) bytes", headers: [("Connection", "close")])
}

/// libmicrohttpd's reader of an event stream's bytes.
private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return -2 }
    return Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
}

/// Releases the stream a response held.
private let streamReleased: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    Unmanaged<EventStream>.fromOpaque(cls).release()
}

/// Queues `response` on `connection`; a stream is registered with the server until its
/// connection ends.
private func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: RequestContext, core: ServerCore) -> MHD_Result {
    var made: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { buffer in
            MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
        }
    case .stream(let stream):
        guard stream.attach(to: connection, server: core) else {
            return queue(.error(500, "the response's stream is already the body of another response"), on: connection, context: context, core: core)
        }
        context.stream = stream
        core.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
        made = MHD_create_response_from_callback(
            chttpd_size_unknown(), 4096, streamReader, Unmanaged.passRetained(stream).toOpaque(), streamReleased)
    }
    guard let made else { return .NO }
    defer { MHD_destroy_response(made) }
    for header in response.headers {
        _ = MHD_add_response_header(made, header.name, header.value)
    }
    return MHD_queue_response(connection, UInt32(clamping: response.status), made) == .YES ? .YES : .NO
}

/// The values of one kind (headers, query arguments) of the connection's request.
private func values(of connection: OpaquePointer, kind: MHD_ValueKind, lowercased: Bool) -> [String: String] {
    final class Collected {
        var values: [String: String] = [:]
        let lowercased: Bool
        init(lowercased: Bool) { self.lowercased = lowercased }
    }
    let collected = Collected(lowercased: lowercased)
    withExtendedLifetime(collected) {
        _ = MHD_get_connection_values(
            connection, kind,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let collected = Unmanaged<Collected>.fromOpaque(cls).takeUnretainedValue()
                let name = collected.lowercased ? String(cString: key).lowercased() : String(cString: key)
                let text = value.map { String(cString: $0) } ?? ""
                if collected.lowercased, let earlier = collected.values[name] {
                    collected.values[name] = earlier + ", " + text
                } else {
                    collected.values[name] = text
                }
                return .YES
            }, Unmanaged.passUnretained(collected).toOpaque())
    }
    return collected.values
}
