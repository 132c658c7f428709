import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain HTTP/1.1 client over a TCP socket, for requests no well-behaved client would send:
/// it writes exactly the bytes it is given and reads exactly what the server answers. Each
/// exchange has a connection of its own; a deadline on every read only guards against a hang.
enum RawHTTP {
    /// An answer: its status, its headers (names lowercased) and its body.
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        /// The body as text.
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// The client could not reach the server, or the server closed the connection without a whole answer.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `method path` with `headers` and `body` (`Content-Length` added when `body` is not `nil`),
    /// sent to 127.0.0.1:`port`.
    static func request(
        _ method: String, _ path: String, port: UInt16, headers: [(String, String)] = [], body: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) throws -> Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        return try exchange(Array((head + "\r\n").utf8) + (body ?? []), port: port, timeout: timeout)
    }

    /// Sends `bytes` as they are and reads one answer: until `Content-Length` is satisfied, the
    /// chunked body ends, or the server closes the connection.
    static func exchange(_ bytes: [UInt8], port: UInt16, timeout: Duration = .seconds(60)) throws -> Answer {
        let descriptor = try connection(to: port)
        defer { close(descriptor) }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            // The server may answer and close before it has read everything (a body over its bound).
            guard count > 0 else { break }
            sent += count
        }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        while true {
            if let answer = parse(received, complete: false) { return answer }
            guard let chunk = try read(descriptor, before: deadline) else {
                guard let answer = parse(received, complete: true) else {
                    throw Failure(description: "the connection closed after \(received.count) bytes without a whole answer")
                }
                return answer
            }
            received += chunk
        }
    }

    /// An open event stream (`text/event-stream`, chunked): its answer's head, then its events
    /// one at a time, read as they come on the test's own thread.
    final class EventStream {
        /// An event: its `id`, its `event` name, and its `data`.
        struct Event {
            var id: String?
            var name: String?
            var data: String
        }

        /// The answer's status and headers (names lowercased).
        let status: Int
        let headers: [String: String]
        private let descriptor: Int32
        /// Bytes of the body read but not yet taken, with the chunked framing removed.
        private var body: [UInt8] = []
        /// Raw bytes read after the head that do not yet make a whole chunk.
        private var pending: [UInt8]

        fileprivate init(descriptor: Int32, status: Int, headers: [String: String], rest: [UInt8]) {
            (self.descriptor, self.status, self.headers, self.pending) = (descriptor, status, headers, rest)
        }

        deinit { close(descriptor) }

        /// The next event (comment lines skipped); `nil` when the server closed the stream.
        /// - Throws: `Failure` when none came before `timeout` (the hang guard).
        func next(timeout: Duration = .seconds(60)) throws -> Event? {
            let deadline = ContinuousClock.now + timeout
            while true {
                unchunk()
                if let event = takeEvent() { return event }
                guard let chunk = try RawHTTP.read(descriptor, before: deadline) else { return nil }
                pending += chunk
            }
        }

        /// Moves each whole chunk of `pending` into `body`.
        private func unchunk() {
            while let lineEnd = pending.indices.dropLast().first(where: { pending[$0] == 13 && pending[$0 + 1] == 10 }),
                let size = Int(String(decoding: pending[..<lineEnd], as: UTF8.self), radix: 16),
                pending.count >= lineEnd + 2 + size + 2
            {
                body += pending[(lineEnd + 2)..<(lineEnd + 2 + size)]
                pending.removeFirst(lineEnd + 2 + size + 2)
            }
        }

        /// The first whole event in `body` (up to a blank line), taken out of it.
        private func takeEvent() -> Event? {
            while let end = body.indices.dropLast().first(where: { body[$0] == 10 && body[$0 + 1] == 10 }) {
                let lines = String(decoding: body[..<end], as: UTF8.self).components(separatedBy: "\n")
                body.removeFirst(end + 2)
                var event = Event(data: "")
                var fields = false
                for line in lines where !line.hasPrefix(":") {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let value = String(line[line.index(after: colon)...].drop(while: { $0 == " " }))
                    fields = true
                    switch line[..<colon] {
                    case "id": event.id = value
                    case "event": event.name = value
                    case "data": event.data += event.data.isEmpty ? value : "\n" + value
                    default: break
                    }
                }
                if fields { return event }
            }
            return nil
        }
    }

    /// Sends `GET path` with `headers` and returns the stream once its answer's head has come
    /// (whatever the status: a refusal's body stays unread).
    static func openStream(_ path: String, port: UInt16, headers: [(String, String)] = [], timeout: Duration = .seconds(60)) throws
        -> EventStream
    {
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        let descriptor = try connection(to: port)
        let bytes = Array((request + "\r\n").utf8)
        let sent = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else {
            close(descriptor)
            throw Failure(description: "the request could not be sent whole")
        }
        let deadline = ContinuousClock.now + timeout
        var received: [UInt8] = []
        while true {
            if let head = head(of: received) {
                return EventStream(descriptor: descriptor, status: head.status, headers: head.headers, rest: Array(received[head.bodyStart...]))
            }
            guard let chunk = try read(descriptor, before: deadline) else {
                close(descriptor)
                throw Failure(description: "the connection closed before the answer's head")
            }
            received += chunk
        }
    }

    /// A socket connected to 127.0.0.1:`port`.
    private static func connection(to port: UInt16) throws -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect: errno \(errno)")
        }
        return descriptor
    }

    /// What one read brings; `nil` when the connection is closed (or reset).
    /// - Throws: `Failure` when nothing came before `deadline`: the server hangs.
    fileprivate static func read(_ descriptor: Int32, before deadline: ContinuousClock.Instant) throws -> [UInt8]? {
        while true {
            let left = deadline - .now
            guard left > .zero else { throw Failure(description: "no answer before the deadline") }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(left.components.seconds * 1000 + 1, 10_000)))
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            return Array(chunk[..<count])
        }
    }

    /// The answer's head in `bytes`, once they hold all of it: its status, its headers (names
    /// lowercased), and where its body starts.
    private static func head(of bytes: [UInt8]) -> (status: Int, headers: [String: String], bodyStart: Int)? {
        let end = Array("\r\n\r\n".utf8)
        guard let headEnd = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual(end) }) else { return nil }
        var lines = String(decoding: bytes[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0, headers, headEnd + 4)
    }

    /// The answer in `bytes`, if they hold a whole one; with `complete`, the connection has
    /// closed, and a body without a length ends there.
    private static func parse(_ bytes: [UInt8], complete: Bool) -> Answer? {
        guard let (status, headers, bodyStart) = head(of: bytes) else { return nil }
        let rest = Array(bytes[bodyStart...])
        if let length = headers["content-length"].flatMap({ Int($0) }) {
            guard rest.count >= length else { return nil }
            return Answer(status: status, headers: headers, body: Array(rest[..<length]))
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var body: [UInt8] = []
            var index = 0
            while let lineEnd = rest.indices.dropLast().first(where: { $0 >= index && rest[$0] == 13 && rest[$0 + 1] == 10 }) {
                guard let size = Int(String(decoding: rest[index..<lineEnd], as: UTF8.self), radix: 16) else { return nil }
                if size == 0 { return Answer(status: status, headers: headers, body: body) }
                guard rest.count >= lineEnd + 2 + size + 2 else { return nil }
                body += rest[(lineEnd + 2)..<(lineEnd + 2 + size)]
                index = lineEnd + 2 + size + 2
            }
            return nil
        }
        return complete ? Answer(status: status, headers: headers, body: rest) : nil
    }
}
