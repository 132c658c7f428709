import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket bound to `host:port` and listening, and the port it got; binding it ourselves
/// (not in libmicrohttpd) is what lets a failure say why.
func listenSocket(host: String, port: UInt16) throws -> (socket: Int32, port: UInt16) {
    let place = hostAndPort(host, port)
    var hints = addrinfo()
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
    hints.ai_family = AF_UNSPEC
    #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    #else
        hints.ai_socktype = SOCK_STREAM
    #endif
    var found: UnsafeMutablePointer<addrinfo>?
    let looked = getaddrinfo(host, String(port), &hints, &found)
    guard looked == 0, let address = found else {
        throw HTTPServerError("cannot listen on \(place): \(String(cString: gai_strerror(looked)).lowercased())")
    }
    defer { freeaddrinfo(found) }
    let listener = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
    guard listener >= 0 else { throw HTTPServerError("cannot listen on \(place): \(reason(errno))") }
    _ = fcntl(listener, F_SETFD, FD_CLOEXEC)
    var yes: Int32 = 1
    _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    guard bind(listener, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, listen(listener, SOMAXCONN) == 0 else {
        let failure = errno
        close(listener)
        throw HTTPServerError("cannot listen on \(place): \(reason(failure))")
    }
    var bound = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    _ = withUnsafeMutablePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
    let boundPort: UInt16 =
        switch Int32(bound.ss_family) {
        case AF_INET:
            withUnsafePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) } }
        case AF_INET6:
            withUnsafePointer(to: &bound) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) } }
        default: port
        }
    return (listener, boundPort)
}

/// "127.0.0.1:8080", "[::1]:8080".
func hostAndPort(_ host: String, _ port: UInt16) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
}

/// A short reason for a system error, as a person reads it in one line.
func reason(_ code: Int32) -> String {
    switch code {
    case EADDRINUSE: "address in use"
    case EACCES: "permission denied"
    case EADDRNOTAVAIL: "no such address on this machine"
    case ENOENT: "no such file"
    case EISDIR: "it is a directory"
    default: String(cString: strerror(code)).lowercased()
    }
}

/// The text of a PEM file; what fails says which file and why.
func readPEM(_ path: String, what: String) throws -> String {
    let file = open(path, O_RDONLY | O_CLOEXEC)
    guard file >= 0 else { throw HTTPServerError("cannot read the TLS \(what) \(path): \(reason(errno))") }
    defer { close(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 << 10)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(file, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw HTTPServerError("cannot read the TLS \(what) \(path): \(reason(errno))")
        }
        if count == 0 { break }
        bytes += chunk[..<count]
        if bytes.count > 1 << 20 { throw HTTPServerError("cannot read the TLS \(what) \(path): longer than 1 MiB, not a PEM file") }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    guard text.contains("-----BEGIN "), !bytes.contains(0) else {
        throw HTTPServerError("cannot read the TLS \(what) \(path): not a PEM file")
    }
    return text
}

/// The client's IP address as text, when libmicrohttpd knows it.
func clientAddress(_ connection: OpaquePointer) -> String? {
    guard let address = chttpd_client_address(connection) else { return nil }
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    switch Int32(address.pointee.sa_family) {
    case AF_INET:
        var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        guard inet_ntop(AF_INET, &ip, &text, socklen_t(text.count)) != nil else { return nil }
    case AF_INET6:
        var ip = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        guard inet_ntop(AF_INET6, &ip, &text, socklen_t(text.count)) != nil else { return nil }
    default:
        return nil
    }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `duration` in whole seconds, rounded up, at least one: libmicrohttpd's timeouts are in seconds.
func wholeSeconds(_ duration: Duration) -> Int {
    let (seconds, attoseconds) = duration.components
    return max(1, Int(seconds) + (attoseconds > 0 ? 1 : 0))
}
