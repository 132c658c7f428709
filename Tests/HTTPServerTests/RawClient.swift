import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP client that writes bytes and reads what comes back, so that tests see exactly
/// what the server sends and can send what no well-behaved client would. Every read waits at
/// most until a deadline, which only guards against a hang.
final class RawClient {
    private let descriptor: Int32
    /// What was read and not yet consumed by `readHead` or `readBody`.
    private(set) var buffer: [UInt8] = []

    /// Connects to `port` on 127.0.0.1.
    init(port: UInt16) throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ClientError("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw ClientError("connect: \(errno)")
        }
        self.descriptor = descriptor
    }

    private var isOpen = true

    deinit { disconnect() }

    /// Closes the connection, as a client that leaves does.
    func disconnect() {
        if isOpen { close(descriptor) }
        isOpen = false
    }

    /// Sends all of `text`; false when the server has closed the connection.
    @discardableResult
    func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Sends all of `bytes`; false when the server has closed the connection.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                return false
            }
            sent += count
        }
        return true
    }

    /// Reads once into the buffer: false when the connection is closed (or reset), or nothing
    /// came before `deadline`.
    private func fill(before deadline: ContinuousClock.Instant) -> Bool {
        while true {
            let left = deadline - .now
            guard left > .zero else { return false }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000))
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            buffer += chunk[..<count]
            return true
        }
    }

    /// Reads until the server closes the connection; true if it did before `deadline`.
    func waitForClose(timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while fill(before: deadline) {}
        return ContinuousClock.now < deadline
    }

    /// Reads a response's status line and headers; `nil` when the connection closed before them.
    func readHead(timeout: Duration = .seconds(30)) -> ResponseHead? {
        let deadline = ContinuousClock.now + timeout
        let end = Array("\r\n\r\n".utf8)
        while true {
            if let range = firstRange(of: end, in: buffer) {
                let text = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeFirst(range.upperBound)
                var lines = text.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return ResponseHead(status: statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0, headers: headers)
            }
            guard fill(before: deadline) else { return nil }
        }
    }

    /// Reads a whole response: its head, then a body of `Content-Length` bytes, chunked, or up
    /// to the connection's close.
    func readResponse(timeout: Duration = .seconds(30)) -> Response? {
        let deadline = ContinuousClock.now + timeout
        guard let head = readHead(timeout: timeout) else { return nil }
        if head.status == 204 || head.status == 304 { return Response(head: head, body: []) }
        if let length = head.headers["content-length"].flatMap({ Int($0) }) {
            while buffer.count < length { guard fill(before: deadline) else { return nil } }
            let body = Array(buffer[..<length])
            buffer.removeFirst(length)
            return Response(head: head, body: body)
        }
        if head.headers["transfer-encoding"] == "chunked" {
            while true {
                let (body, complete) = decodeChunks(buffer)
                if complete { return Response(head: head, body: body) }
                guard fill(before: deadline) else { return nil }
            }
        }
        while fill(before: deadline) {}
        defer { buffer = [] }
        return Response(head: head, body: buffer)
    }

    /// Reads a chunked body until its decoded text satisfies `enough`; the text so far and
    /// whether the body ended (its last chunk came).
    func readChunked(timeout: Duration = .seconds(30), until enough: (String) -> Bool) -> (text: String, ended: Bool) {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (body, complete) = decodeChunks(buffer)
            let text = String(decoding: body, as: UTF8.self)
            if complete || enough(text) { return (text, complete) }
            guard fill(before: deadline) else { return (text, false) }
        }
    }
}

/// A response's status and headers (names lowercased).
struct ResponseHead {
    var status: Int
    var headers: [String: String]
}

/// A whole response.
struct Response {
    var head: ResponseHead
    var body: [UInt8]
    var status: Int { head.status }
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// The client could not reach the server.
struct ClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The data of the complete chunks at the start of `bytes`, and whether the last (empty) chunk
/// is among them.
func decodeChunks(_ bytes: [UInt8]) -> (body: [UInt8], complete: Bool) {
    var body: [UInt8] = []
    var index = 0
    let lineEnd = Array("\r\n".utf8)
    while let range = firstRange(of: lineEnd, in: bytes, from: index) {
        let sizeText = String(decoding: bytes[index..<range.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
        guard let size = Int(sizeText, radix: 16) else { return (body, false) }
        if size == 0 { return (body, true) }
        let start = range.upperBound
        guard bytes.count >= start + size + 2 else { return (body, false) }
        body += bytes[start..<start + size]
        index = start + size + 2
    }
    return (body, false)
}

/// Where `needle` first occurs in `haystack` at or after `start`.
func firstRange(of needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Range<Int>? {
    guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
    for index in start...(haystack.count - needle.count) where haystack[index..<index + needle.count].elementsEqual(needle) {
        return index..<index + needle.count
    }
    return nil
}
