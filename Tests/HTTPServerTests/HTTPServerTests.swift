import Foundation
import Synchronization
import TestSupport
import Testing

@testable import HTTPServer

/// The server seen from outside: raw HTTP over real sockets (and curl for TLS), against handlers
/// that record what reached them.
@Suite struct HTTPServerTests {
    @Test func aGetRequestReachesTheHandlerWithItsPathQueryAndHeaders() throws {
        let seen = Mutex<HTTPRequest?>(nil)
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
            seen.withLock { $0 = request }
            return .json(200, #"{"ok":true}"#, headers: [("X-Answer", "42")])
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.write(
            "GET /lists/Tasks%20A/rows?after=3&name=caf%C3%A9%20au%20lait&flag HTTP/1.1\r\nHost: localhost\r\nX-Replica: R1\r\nAccept: a\r\nAccept: b\r\n\r\n"
        )
        let response = try #require(client.readResponse())
        #expect(response.status == 200)
        #expect(response.head.headers["content-type"] == "application/json")
        #expect(response.head.headers["x-answer"] == "42")
        #expect(response.text == #"{"ok":true}"#)
        let request = try #require(seen.withLock { $0 })
        #expect(request.method == "GET")
        #expect(request.path == "/lists/Tasks%20A/rows")
        #expect(request.query == ["after": "3", "name": "café au lait", "flag": ""])
        #expect(request.header("X-REPLICA") == "R1")
        #expect(request.headers["x-replica"] == "R1")
        #expect(request.header("accept") == "a, b")
        #expect(request.body.isEmpty)
        #expect(!request.isTLS)
        #expect(request.remoteAddress == "127.0.0.1")

        // The connection is kept alive for the next request.
        client.write("POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello")
        let second = try #require(client.readResponse())
        #expect(second.status == 200)
        #expect(seen.withLock { $0?.body } == Array("hello".utf8))
        #expect(seen.withLock { $0?.method } == "POST")
    }

    @Test func aBodyAtTheLimitIsAcceptedAndOneByteOverIsAnswered413WithoutTheHandler() throws {
        var limits = HTTPLimits()
        limits.maxBodyBytes = 1000
        let bodies = Mutex<[Int]>([])
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            bodies.withLock { $0.append(request.body.count) }
            return HTTPResponse(status: 204)
        }
        defer { server.stop() }

        let atLimit = try RawClient(port: server.port)
        atLimit.write("POST /push HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + String(repeating: "a", count: 1000))
        #expect(atLimit.readResponse()?.status == 204)
        #expect(bodies.withLock { $0 } == [1000])

        // Content-Length says it is too long: answered at once, before the body is sent.
        let declared = try RawClient(port: server.port)
        declared.write("POST /push HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n")
        let refused = try #require(declared.readResponse())
        #expect(refused.status == 413)
        #expect(refused.head.headers["content-type"] == "application/json")
        #expect(refused.text == #"{"error":"the request body is longer than 1000 bytes"}"#)

        // A chunked body only turns out too long as it is read.
        let chunked = try RawClient(port: server.port)
        let chunk = String(repeating: "b", count: 600)
        chunked.write("POST /push HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n258\r\n\(chunk)\r\n" + "258\r\n\(chunk)\r\n0\r\n\r\n")
        #expect(chunked.readResponse()?.status == 413)
        #expect(bodies.withLock { $0 } == [1000])
    }

    @Test func aHeadOverTheLimitIsRefusedWithoutTheHandler() throws {
        let calls = Atomic(0)
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in
            calls.add(1, ordering: .relaxed)
            return HTTPResponse(status: 200)
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.write("GET / HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "p", count: 20 << 10))\r\n\r\n")
        if let head = client.readHead() {
            #expect([413, 431].contains(head.status))
        }
        #expect(client.waitForClose())
        #expect(calls.load(ordering: .relaxed) == 0)
    }

    @Test func aClientThatGoesSilentMidRequestIsDroppedAfterTheTimeout() throws {
        var limits = HTTPLimits()
        limits.connectionTimeout = .seconds(1)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { _ in HTTPResponse(status: 200) }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.write("GET /half HTTP/1.1\r\nHost: loc")
        #expect(client.waitForClose(timeout: .seconds(60)), "the server closes the connection")
        #expect(!String(decoding: client.buffer, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
    }

    @Test func eventsSentAfterTheResponseStartedArriveInOrderAndFinishEndsTheStream() throws {
        let streams = StreamBox()
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in
            let stream = EventStream()
            streams.add(stream)
            return .eventStream(stream)
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try #require(client.readHead())
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        #expect(head.headers["transfer-encoding"] == "chunked")
        let stream = try #require(streams.all.first)
        for number in 1...3 {
            stream.send(Array("data: \(number)\n\n".utf8))
        }
        let (text, _) = client.readChunked { $0.contains("data: 3\n\n") }
        #expect(text == "data: 1\n\ndata: 2\n\ndata: 3\n\n")
        // Sent from another thread, after the connection waited.
        Thread.detachNewThread { stream.send(Array("data: 4\n\n".utf8)) }
        #expect(client.readChunked { $0.contains("data: 4") }.text.hasSuffix("data: 4\n\n"))
        let closed = Signal()
        stream.onClose { closed.fire() }
        stream.finish()
        #expect(stream.isClosed)
        #expect(closed.wait())
        let (all, ended) = client.readChunked { _ in false }
        #expect(ended, "the last chunk came")
        #expect(all == "data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n")
    }

    @Test func aClientLeavingAStreamRunsOnClose() throws {
        var limits = HTTPLimits()
        limits.streamKeepAlive = .milliseconds(100)
        let streams = StreamBox()
        let closed = Signal()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { _ in
            let stream = EventStream()
            stream.onClose { closed.fire() }
            streams.add(stream)
            return .eventStream(stream)
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readHead()?.status == 200)
        // A quiet stream sends comments.
        #expect(client.readChunked { $0.contains(":\n\n") }.text.hasPrefix(":\n\n"))
        client.disconnect()
        #expect(closed.wait(), "onClose ran once the server wrote to the departed client")
        #expect(streams.all.first?.isClosed == true)
    }

    @Test func aStreamWrittenFasterThanItsClientReadsWaitsForItAndStopsWhenItLeaves() throws {
        let streams = StreamBox()
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { _ in
            let stream = EventStream(keepAlive: Array("\n".utf8), capacity: 16 << 10)
            streams.add(stream)
            return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: .stream(stream))
        }
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        client.write("GET /clone HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(client.readHead()?.status == 200)
        let stream = try #require(streams.all.first)
        let total = 64 << 20
        let accepted = Atomic(0)
        let stopped = Signal()
        Thread.detachNewThread {
            let line = Array(String(repeating: "x", count: 4095).utf8) + [0x0A]
            while accepted.load(ordering: .relaxed) < total, stream.write(line) { accepted.add(line.count, ordering: .relaxed) }
            stopped.fire()
        }
        // The client reads nothing: the writer waits once the connection and the stream are full,
        // holding far less than it had to send.
        let deadline = ContinuousClock.now + .seconds(30)
        while !stream.state.withLock({ $0.writerWaits }) && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(stream.state.withLock { $0.writerWaits })
        #expect(stream.state.withLock { $0.queued } <= 20 << 10)
        #expect(accepted.load(ordering: .relaxed) < total / 2)
        // The client leaves: the waiting write returns false, and the writer stops.
        client.disconnect()
        #expect(stopped.wait())
        #expect(stream.isClosed)
        #expect(!stream.write([0x0A]))
    }

    @Test func manyIdleStreamsLeaveThePoolFreeForOtherRequestsAndStopEndsThem() throws {
        let streams = StreamBox()
        let ended = Atomic(0)
        let server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
            guard request.path == "/events" else { return .json(200, #"{"plain":true}"#) }
            let stream = EventStream()
            stream.onClose { ended.add(1, ordering: .relaxed) }
            streams.add(stream)
            return .eventStream(stream)
        }
        var clients: [RawClient] = []
        for _ in 0..<200 {
            let client = try RawClient(port: server.port)
            client.write("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            clients.append(client)
        }
        for client in clients {
            #expect(client.readHead()?.status == 200)
        }
        #expect(streams.all.count == 200)
        let plain = try RawClient(port: server.port)
        plain.write("GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(plain.readResponse()?.text == #"{"plain":true}"#)
        // Events still reach every waiting stream (handlers ran in any order: each stream is sent one).
        for stream in streams.all { stream.send(Array("data: last\n\n".utf8)) }
        #expect(clients.last?.readChunked { $0.contains("data: last") }.text.hasSuffix("data: last\n\n") == true)

        server.stop()
        #expect(ended.load(ordering: .relaxed) == 200)
        #expect(streams.all.allSatisfy { $0.isClosed })
        #expect(clients[0].waitForClose())
    }

    @Test func requestsBeyondTheConnectionLimitAreAnswered503WithRetryAfter() throws {
        var limits = HTTPLimits()
        limits.maxConnections = 2
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { _ in HTTPResponse(status: 204) }
        defer { server.stop() }
        var open: [RawClient] = []
        for _ in 0..<2 {
            let client = try RawClient(port: server.port)
            client.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.status == 204)
            open.append(client)
        }
        let third = try RawClient(port: server.port)
        third.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        let busy = try #require(third.readResponse())
        #expect(busy.status == 503)
        #expect(busy.head.headers["retry-after"] == "1")
        open.removeAll()
    }

    @Test func aHandlerThatWaitsHoldsUpNoAnswerTheServerGivesItselfAndARequestQueuedTooLongIsAnswered503() throws {
        var limits = HTTPLimits()
        limits.threads = 1
        limits.maxBodyBytes = 16
        limits.queueWait = .seconds(1)
        let entered = Signal()
        let release = Signal()
        let ran = Mutex<[String]>([])
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            ran.withLock { $0.append(request.path) }
            if request.path == "/wait" {
                entered.fire()
                // Longer than a read's deadline: a server that waited for this handler fails the test.
                _ = release.wait(timeout: .seconds(120))
            }
            return HTTPResponse(status: 204)
        }
        defer { server.stop() }
        let waiting = try RawClient(port: server.port)
        waiting.write("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(entered.wait(), "the handler started")

        // The one handler thread waits; the server still reads requests and answers a body over
        // the limit itself.
        let long = try RawClient(port: server.port)
        long.write("POST /long HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n")
        #expect(long.readResponse()?.status == 413)

        // A request queued behind it past `queueWait` is answered 503 and never run.
        let queued = try RawClient(port: server.port)
        queued.write("GET /queued HTTP/1.1\r\nHost: x\r\n\r\n")
        let busy = try #require(queued.readResponse())
        #expect(busy.status == 503)
        #expect(busy.head.headers["retry-after"] == "1")

        release.fire()
        #expect(waiting.readResponse()?.status == 204)
        // The next request is run at once.
        queued.write("GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(queued.readResponse()?.status == 204)
        #expect(ran.withLock { $0 } == ["/wait", "/next"])
    }

    @Test func stopWaitsForARunningHandlerAndItsAnswerIsSent() throws {
        var limits = HTTPLimits()
        limits.threads = 1
        let entered = Signal()
        let release = Signal()
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits) { request in
            entered.fire()
            _ = release.wait()
            return .json(200, #"{"path":"\#(request.path)"}"#)
        }
        let waiting = try RawClient(port: server.port)
        waiting.write("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(entered.wait())
        let stopped = Signal()
        Thread {
            server.stop()
            stopped.fire()
        }.start()
        release.fire()
        #expect(stopped.wait(), "stop returned")
        #expect(waiting.readResponse()?.text == #"{"path":"/wait"}"#)
    }

    @Test func listeningOnAPortInUseSaysSoInOneLine() throws {
        let first = try HTTPServer(host: "127.0.0.1", port: 0) { _ in HTTPResponse(status: 200) }
        defer { first.stop() }
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(host: "127.0.0.1", port: first.port) { _ in HTTPResponse(status: 200) }
        }
        #expect(error?.description == "cannot listen on 127.0.0.1:\(first.port): address in use")
    }

    @Test func anUnreadableCertificateSaysWhichFile() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path("missing.pem")
        let error = #expect(throws: HTTPServerError.self) {
            try HTTPServer(host: "127.0.0.1", port: 0, tls: TLSFiles(certificate: missing, key: missing)) { _ in HTTPResponse(status: 200) }
        }
        #expect(error?.description == "cannot read the TLS certificate \(missing): no such file")
    }

    @Test(.needs(.openssl, .curl)) func tlsServesHTTPSAndRefusesPlainHTTP() throws {
        let directory = try TemporaryDirectory()
        let certificate = directory.path("cert.pem")
        let key = directory.path("key.pem")
        let made = try run(
            RequiredTool.openssl.path(),
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1", "-keyout", key, "-out", certificate])
        #expect(made.status == 0, "\(made.output)")
        let seen = Mutex<HTTPRequest?>(nil)
        let server = try HTTPServer(host: "127.0.0.1", port: 0, tls: TLSFiles(certificate: certificate, key: key)) { request in
            seen.withLock { $0 = request }
            return .json(200, #"{"secure":true}"#)
        }
        defer { server.stop() }
        let fetched = try run(
            RequiredTool.curl.path(),
            ["-sS", "--cacert", certificate, "--resolve", "localhost:\(server.port):127.0.0.1", "https://localhost:\(server.port)/hello?x=1"])
        #expect(fetched.status == 0)
        #expect(fetched.output == #"{"secure":true}"#)
        #expect(seen.withLock { $0?.isTLS } == true)
        #expect(seen.withLock { $0?.query } == ["x": "1"])

        let plain = try RawClient(port: server.port)
        plain.write("GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
        #expect(plain.waitForClose())
        #expect(!String(decoding: plain.buffer, as: UTF8.self).hasPrefix("HTTP/"))
    }
}

/// The streams a handler made, for the test to send on.
final class StreamBox: Sendable {
    private let streams = Mutex<[EventStream]>([])
    func add(_ stream: EventStream) { streams.withLock { $0.append(stream) } }
    var all: [EventStream] { streams.withLock { $0 } }
}

/// Something that happens once, on another thread; the test waits for it.
final class Signal: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    func fire() { semaphore.signal() }
    /// Whether it happened; the deadline only guards against a hang.
    func wait(timeout: Duration = .seconds(30)) -> Bool {
        semaphore.wait(timeout: .now() + .seconds(Int(timeout.components.seconds))) == .success
    }
}

/// Runs `program` with `arguments`; its exit status and standard output (standard error follows it).
func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
