import CMicroHTTPD
import Dispatch
import Synchronization

/// A response body written while the response is open, such as Server-Sent Events.
///
/// A handler makes one, returns it in its response at once, and keeps it (or gives it to whatever
/// produces events); other code then calls `send(_:)` from any thread. Between sends the
/// connection waits without holding a thread: the server suspends it when the stream has nothing
/// queued and resumes it on the next `send` (libmicrohttpd's suspend and resume), so a thousand
/// idle streams cost a thousand sockets, not a thousand threads.
///
/// The stream ends when `finish()` is called (what was sent is delivered first), when the client
/// leaves, or when the server stops; `onClose` handlers then run once. A client that leaves is
/// noticed at the next write to it: an event, or the keep-alive bytes the server sends after
/// `HTTPLimits.streamKeepAlive` of quiet.
///
/// A long body made as fast as it can be read (a list's clone) is written with `write(_:)`
/// instead of `send(_:)`: it waits while `capacity` bytes are queued, so the body is made no
/// faster than the client reads it, and the server holds at most `capacity` of it at a time.
public final class EventStream: Sendable {
    /// The connection a stream is the response of, and its server.
    struct Attachment: @unchecked Sendable {
        /// libmicrohttpd's connection: valid until the request-completed callback, which
        /// detaches the stream under its lock, so it is only used under that lock.
        let connection: OpaquePointer
        let server: ServerCore
    }

    struct State {
        /// Bytes sent and not yet handed to the connection, from `offset` on.
        var pending: [UInt8] = []
        var offset = 0
        var attachment: Attachment?
        var wasAttached = false
        /// Whether the connection is suspended: only then may it be resumed.
        var suspended = false
        var finished = false
        var stopping = false
        var closed = false
        var closeHandlers: [@Sendable () -> Void] = []
        var lastWrite = ContinuousClock.now
        /// Whether a `write` waits for the queue to drain below the capacity.
        var writerWaits = false

        var hasPending: Bool { offset < pending.count }

        /// The bytes queued and not yet handed to the connection.
        var queued: Int { pending.count - offset }

        /// Resumes the connection if it waits, so that it reads the stream again.
        mutating func wake() {
            guard suspended, let attachment else { return }
            suspended = false
            MHD_resume_connection(attachment.connection)
        }
    }

    let state = Mutex(State())
    /// What is sent after `HTTPLimits.streamKeepAlive` of quiet.
    let keepAliveBytes: [UInt8]
    /// The bytes `write(_:)` lets queue up before it waits.
    public let capacity: Int
    /// Signalled when a waiting `write` may go on: the queue drained below `capacity`, or the
    /// stream closed.
    private let drained = DispatchSemaphore(value: 0)

    /// A stream with nothing sent yet. `keepAlive` is what a quiet stream sends every
    /// `HTTPLimits.streamKeepAlive` (a Server-Sent Events comment by default; whatever the body's
    /// format lets a reader skip); `capacity`, how much `write(_:)` lets queue up.
    public init(keepAlive: [UInt8] = Array(":\n\n".utf8), capacity: Int = 256 << 10) {
        self.keepAliveBytes = keepAlive
        self.capacity = max(1, capacity)
    }

    /// Appends `bytes` to the stream; they are sent as soon as the connection can take them.
    /// Does nothing once the stream is closed.
    public func send(_ bytes: [UInt8]) {
        state.withLock { state in
            guard !state.closed, !bytes.isEmpty else { return }
            state.pending += bytes
            state.lastWrite = .now
            state.wake()
        }
    }

    /// Appends `bytes` to the stream once fewer than `capacity` bytes wait to be sent, waiting
    /// until then: the body is made no faster than the client reads it. Returns false, sending
    /// nothing, once the stream is closed (the client left, or the server stops), so that its
    /// maker stops. One thread writes a stream at a time; it must not be a handler's own (the
    /// handler returns the stream first).
    public func write(_ bytes: [UInt8]) -> Bool {
        while true {
            let appended: Bool? = state.withLock { state in
                guard !state.closed else { return false }
                guard state.queued < capacity else {
                    state.writerWaits = true
                    return nil
                }
                if state.offset > 0 {
                    state.pending.removeSubrange(0..<state.offset)
                    state.offset = 0
                }
                if !bytes.isEmpty {
                    state.pending += bytes
                    state.lastWrite = .now
                    state.wake()
                }
                return true
            }
            if let appended { return appended }
            drained.wait()
        }
    }

    /// Ends the stream once what was sent before is delivered, and runs the `onClose` handlers.
    public func finish() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            state.finished = true
            state.wake()
            return state.close()
        }
        wakeWriter()
        for handler in handlers { handler() }
    }

    /// Lets a waiting `write` go on, if one waits (it looks at the state again).
    private func wakeWriter() {
        let waits = state.withLock { state in
            defer { state.writerWaits = false }
            return state.writerWaits
        }
        if waits { drained.signal() }
    }

    /// Whether the stream has ended: `finish()` was called, the client went away, or the server
    /// stopped. Nothing sent after that is delivered.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `body` once when the stream ends (at once if it has ended), on whichever thread ends it.
    public func onClose(_ body: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            if state.closed { return true }
            state.closeHandlers.append(body)
            return false
        }
        if runNow { body() }
    }

    /// Binds the stream to the connection it is the response of; false when it already was
    /// bound (one stream is the body of one response).
    func attach(to connection: OpaquePointer, server: ServerCore) -> Bool {
        state.withLock { state in
            guard !state.wasAttached else { return false }
            state.wasAttached = true
            state.attachment = Attachment(connection: connection, server: server)
            return true
        }
    }

    /// libmicrohttpd's content reader: copies up to `max` queued bytes into `buffer`; -1 (end of
    /// stream) once it is finished and drained or the server stops; otherwise suspends the
    /// connection and returns 0, which libmicrohttpd allows only for a suspended connection.
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        state.withLock { state in
            if state.hasPending {
                let count = min(max, state.pending.count - state.offset)
                state.pending.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + state.offset, byteCount: count)
                }
                state.offset += count
                if state.offset == state.pending.count {
                    state.pending.removeAll(keepingCapacity: true)
                    state.offset = 0
                }
                if state.writerWaits && state.queued < capacity {
                    state.writerWaits = false
                    drained.signal()
                }
                return count
            }
            guard let attachment = state.attachment, !state.finished, !state.stopping, !attachment.server.isStopping else { return -1 }
            MHD_suspend_connection(attachment.connection)
            state.suspended = true
            return 0
        }
    }

    /// The connection ended (the stream finished, the client left, or the server stopped): the
    /// stream is closed and forgets the connection.
    func connectionEnded() {
        let handlers: [@Sendable () -> Void] = state.withLock { state in
            state.attachment = nil
            state.suspended = false
            state.pending = []
            state.offset = 0
            return state.close()
        }
        wakeWriter()
        for handler in handlers { handler() }
    }

    /// The server is stopping: a waiting connection is resumed so that it ends.
    func serverStopping() {
        state.withLock { state in
            state.stopping = true
            state.wake()
        }
        wakeWriter()
    }

    /// Sends the keep-alive bytes (the comment line `:\n\n` by default) if nothing was sent for
    /// `interval`, which keeps proxies from closing a quiet stream and finds out whether its
    /// client is still there.
    func keepAlive(now: ContinuousClock.Instant, interval: Duration) {
        state.withLock { state in
            guard state.attachment != nil, !state.closed, !state.hasPending, now - state.lastWrite >= interval else { return }
            state.pending += keepAliveBytes
            state.lastWrite = now
            state.wake()
        }
    }
}

extension EventStream.State {
    /// Marks the stream closed; the handlers to run (outside the lock), the first time only.
    mutating func close() -> [@Sendable () -> Void] {
        guard !closed else { return [] }
        closed = true
        defer { closeHandlers = [] }
        return closeHandlers
    }
}
