import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A PostgreSQL server's Unix socket passed through a directory of its own, byte for byte (or a
/// TCP port on loopback passed through another: `init(forwardingTCPPort:)`), with two faults a
/// test can make — `cut()` ends every connection open through it at once, as a network that
/// fails does, while the server goes on with what it had received (connections made afterwards
/// pass through again); `isSilent` swallows every byte while it is set, as a network that goes
/// quiet does, the connections left open — one count a benchmark reads: `roundTrips`, what
/// clients waited on the server for — and a latency it can add (`delay`), as a network's.
public final class SocketProxy: Sendable {
    /// The directory to give libpq as `host`: it holds the socket `.s.PGSQL.<port>` (empty for a
    /// TCP proxy).
    public let directory: String
    /// The loopback port a TCP proxy listens on (0 for a Unix socket's).
    public let tcpPort: UInt16
    private let listener: Int32
    private enum Upstream {
        case unix(String)
        case tcp(UInt16)
    }
    private let upstream: Upstream
    private let silent = Atomic<Bool>(false)
    private let losing = Atomic<Bool>(false)
    /// Every descriptor of a connection passing through, to shut down on `cut()`.
    private let open = Mutex<Set<Int32>>([])
    private let trips = Atomic<Int>(0)
    private let delayNanoseconds = Atomic<Int64>(0)

    /// How long every byte waits in the proxy, each way, as it would on a network with this
    /// latency; 0 unless set. Bytes keep their order and are not held back by those before them
    /// beyond that: a stream of many chunks takes the delay once, not once a chunk.
    public var delay: Duration {
        get { .nanoseconds(delayNanoseconds.load(ordering: .relaxed)) }
        set {
            let (seconds, attoseconds) = newValue.components
            delayNanoseconds.store(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .relaxed)
        }
    }

    /// Listens beside the server whose socket is `.s.PGSQL.<port>` in `serverDirectory`.
    public init(serverDirectory: String, port: Int = 5432) throws {
        let name = ".s.PGSQL.\(port)"
        directory = FileManager.default.temporaryDirectory.appending(path: "sectionctl-proxy-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        upstream = .unix(serverDirectory + "/" + name)
        tcpPort = 0
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(directory + "/" + name)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listening, 16) == 0 else {
            close(listening)
            throw ProxyError("cannot listen at \(directory): errno \(errno)")
        }
        listener = listening
        accepting()
    }

    /// Listens on a free loopback port (`tcpPort`) and passes each connection to `port` on
    /// loopback: an HTTP server's, say.
    public init(forwardingTCPPort port: UInt16) throws {
        directory = ""
        upstream = .tcp(port)
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, length) == 0 && getsockname(listening, $0, &length) == 0 }
        }
        guard bound, listen(listening, 64) == 0 else {
            close(listening)
            throw ProxyError("cannot listen on loopback: errno \(errno)")
        }
        tcpPort = UInt16(bigEndian: address.sin_port)
        listener = listening
        accepting()
    }

    /// Whether every byte is swallowed, both ways, the connections left open: a peer gone quiet.
    public var isSilent: Bool {
        get { silent.load(ordering: .relaxed) }
        set { silent.store(newValue, ordering: .relaxed) }
    }

    /// Whether every answer is lost: what a server sends back ends its connection instead of
    /// reaching the client, after the server has done the work (a network that fails just then).
    public var losesAnswers: Bool {
        get { losing.load(ordering: .relaxed) }
        set { losing.store(newValue, ordering: .relaxed) }
    }

    private func accepting() {
        let listening = listener
        Thread { [self] in
            while true {
                let client = accept(listening, nil, nil)
                guard client >= 0 else { return }  // closed
                pass(client)
            }
        }.start()
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        cut()
        if !directory.isEmpty { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Ends every connection open through the proxy, in both directions, at once.
    ///
    /// The descriptors are shut down while the set is held: a connection leaves the set before
    /// its descriptors are closed, so none of them can be closed, and its number given to a
    /// connection made since (a client reconnecting at once), while this goes through the set.
    public func cut() {
        open.withLock { descriptors in
            for descriptor in descriptors { shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// The round trips clients waited for since the proxy started or `resetRoundTrips()`: each
    /// connection's startup message and password message (`p`), each simple query (`Q`) and
    /// each `Sync` (`S`) of the extended protocol they sent, which is what libpq sends once per
    /// `PQexec`, `PQexecParams` or pipeline before it waits for the answer.
    public var roundTrips: Int { trips.load(ordering: .relaxed) }

    /// Starts the count of `roundTrips` again from 0.
    public func resetRoundTrips() { trips.store(0, ordering: .relaxed) }

    private func pass(_ client: Int32) {
        let server: Int32
        let connected: Int32
        switch upstream {
        case .unix(let path):
            server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.address(path)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        case .tcp(let port):
            server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: port)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else {
            close(client)
            close(server)
            return
        }
        open.withLock { $0.formUnion([client, server]) }
        let remaining = Mutex(2)
        for (from, to) in [(client, server), (server, client)] {
            // A reader each way, which passes what it reads on at once; with a delay set, it
            // queues each chunk instead for a writer, which sends it when its delay is up (and
            // the reader queues behind anything still queued, to keep the order).
            let pipe = DelayedChunks()
            Thread { [self] in
                var buffer = [UInt8](repeating: 0, count: 65_536)
                var framing = from == client && directory != "" ? FrontendFraming() : nil
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    if isSilent { continue }
                    if from == server && losesAnswers { break }
                    if let waits = framing?.take(buffer[0..<count]), waits > 0 { trips.add(waits, ordering: .relaxed) }
                    let delay = delay
                    if delay == .zero && pipe.isIdle {
                        guard buffer[0..<count].withUnsafeBytes({ Self.sendAll(to, $0) }) else { break }
                    } else {
                        pipe.put(Array(buffer[0..<count]), due: .now + delay)
                    }
                }
                pipe.put(nil, due: .now)
            }.start()
            Thread { [self] in
                while let bytes = pipe.take() {
                    let sent = bytes.withUnsafeBytes { Self.sendAll(to, $0) }
                    pipe.sent()
                    guard sent else { break }
                }
                shutdown(from, Int32(SHUT_RDWR))
                shutdown(to, Int32(SHUT_RDWR))
                // The second of the pair to stop closes both.
                if remaining.withLock({
                    $0 -= 1
                    return $0
                }) == 0 {
                    open.withLock { $0.subtract([client, server]) }
                    close(client)
                    close(server)
                }
            }.start()
        }
    }

    /// Sends all of `bytes`; false when the socket failed first.
    private static func sendAll(_ socket: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let wrote = sendQuietly(socket, UnsafeRawBufferPointer(rebasing: bytes[sent...]))
            guard wrote > 0 else { return false }
            sent += wrote
        }
        return true
    }

    /// Sends `bytes` to a socket whose peer may be gone (a cut, a client that left): an error
    /// then, never SIGPIPE, which would end the whole process.
    private static func sendQuietly(_ socket: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(socket, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
            return send(socket, bytes.baseAddress, bytes.count, 0)
        #else
            return send(socket, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        #endif
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            let utf8 = Array(path.utf8.prefix(bytes.count - 1))
            bytes.copyBytes(from: utf8)
            bytes[utf8.count] = 0
        }
        return address
    }

    public struct ProxyError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

/// The framing of what a PostgreSQL client sends: a startup message (its length first), then
/// messages of a type byte and a length. Counts the messages a client then waits on.
private struct FrontendFraming {
    private var pending: [UInt8] = []
    private var started = false

    /// Takes the next bytes; returns how many round trips they began (see `roundTrips`).
    mutating func take(_ bytes: ArraySlice<UInt8>) -> Int {
        pending.append(contentsOf: bytes)
        var waits = 0
        var start = 0
        while true {
            let typed = started ? 1 : 0
            guard pending.count - start >= typed + 4 else { break }
            let length = pending[(start + typed)..<(start + typed + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard length >= 4, pending.count - start >= typed + length else { break }
            // The startup message, which the client waits on for its answer (authentication
            // and the session's first ReadyForQuery), and what it sends back when asked for a
            // password ('p'), are round trips of the connection.
            if !started || [UInt8(ascii: "Q"), UInt8(ascii: "S"), UInt8(ascii: "p")].contains(pending[start]) { waits += 1 }
            started = true
            start += typed + length
        }
        pending.removeFirst(start)
        return waits
    }
}

/// The chunks read one way through the proxy, each with the moment it may be sent; `nil` ends
/// the stream.
private final class DelayedChunks: Sendable {
    private let chunks = Mutex<[(bytes: [UInt8]?, due: ContinuousClock.Instant)]>([])
    /// Chunks put and not yet sent (or given up on).
    private let unsent = Atomic<Int>(0)
    private let ready = DispatchSemaphore(value: 0)

    /// Whether nothing waits to be sent: the reader may send the next chunk itself.
    var isIdle: Bool { unsent.load(ordering: .acquiring) == 0 }

    func put(_ bytes: [UInt8]?, due: ContinuousClock.Instant) {
        if bytes != nil { unsent.add(1, ordering: .releasing) }
        chunks.withLock { $0.append((bytes, due)) }
        ready.signal()
    }

    /// The writer has sent the chunk `take()` gave it.
    func sent() { unsent.subtract(1, ordering: .releasing) }

    /// The next chunk, once its moment has come; `nil` at the end of the stream.
    func take() -> [UInt8]? {
        ready.wait()
        let (bytes, due) = chunks.withLock { $0.removeFirst() }
        let wait = ContinuousClock.now.duration(to: due)
        if wait > .zero {
            let (seconds, attoseconds) = wait.components
            var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
            nanosleep(&time, nil)
        }
        return bytes
    }
}
