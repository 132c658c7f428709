import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where a replica syncs: its list's address on a sync service (`https://HOST[:PORT]/lists/NAME`)
/// and the token that opens it.
package struct SyncEndpoint: Sendable, Equatable {
    /// The list's address, as given to `clone` (its path percent-encoded).
    package var url: URL
    /// The list's name on the server: the address's last path component, decoded.
    package var list: String
    package var token: String

    /// Reads a list's address. Plain `http://` is taken only for a loopback host, or when
    /// `allowPlainHTTP` (the user asked for it by name): elsewhere the token would cross the
    /// network in the clear.
    /// - Throws: `RepositoryError.replica(.badServerAddress)` naming what is wrong.
    package init(_ address: String, token: String, allowPlainHTTP: Bool = false) throws {
        func bad(_ reason: String) -> RepositoryError { .replica(.badServerAddress(address: address, reason: reason)) }
        guard let components = URLComponents(string: address), let scheme = components.scheme?.lowercased(), let host = components.host,
            !host.isEmpty, let url = components.url
        else {
            throw bad("it is not an address of the form https://HOST[:PORT]/lists/NAME")
        }
        guard scheme == "https" || scheme == "http" else { throw bad("its scheme is \(scheme); a sync service is reached over https (or http)") }
        guard components.user == nil, components.password == nil, components.query == nil, components.fragment == nil else {
            throw bad("it holds a user, password, query or fragment; give the list's address alone and the token in a file")
        }
        let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].isEmpty, parts[1] == "lists", let name = String(parts[2]).removingPercentEncoding, !name.isEmpty else {
            throw bad("its path is not /lists/NAME")
        }
        if scheme == "http" && !allowPlainHTTP && !Self.isLoopbackHost(host) {
            throw bad("plain http to \(host) would send the token in the clear; use https, or opt in to plain http by name")
        }
        guard !token.isEmpty, token.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
            throw RepositoryError.replica(.badToken(reason: "a token is one word of printable ASCII"))
        }
        self.url = url
        self.list = name
        self.token = token
    }

    /// Whether `host` is this machine: `localhost`, 127.0.0.0/8 or `::1`.
    package static func isLoopbackHost(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The address without the token: what errors and `status` name.
    package var description: String { url.absoluteString }
}

/// A sync service's client, over `URLSession` (FoundationNetworking on Linux): what a replica on
/// any device, an iOS app's among them, syncs with. Every request carries the token as
/// `Authorization: Bearer` and has a deadline: a peer silent for `timeout` fails the request
/// with `RepositoryError.unavailable`, never a hang.
package final class HTTPSyncClient: Sendable {
    package let endpoint: SyncEndpoint
    private let session: URLSession

    package init(endpoint: SyncEndpoint, timeout: Duration) {
        self.endpoint = endpoint
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds * 4
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Registers a new replica of the list (`POST /lists/NAME/replicas`).
    package func register() throws -> SyncMessages.Registration {
        try decode(SyncMessages.Registration.self, from: send("replicas", body: Array("{}".utf8)))
    }

    /// Pushes and pulls in one round trip (`POST /lists/NAME/sync`).
    package func sync(_ request: SyncMessages.SyncRequest) throws -> SyncMessages.SyncAnswer {
        try decode(SyncMessages.SyncAnswer.self, from: send("sync", body: SyncMessages.encode(request)))
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw RepositoryError.replica(.badAnswer(server: endpoint.description, reason: "its answer is not what the protocol says: \(error)"))
        }
    }

    /// Sends a POST to `suffix` under the list's address and waits for the whole answer; turns a
    /// status other than 2xx into the error it stands for.
    private func send(_ suffix: String, body: [UInt8]) throws -> Data {
        var request = URLRequest(url: endpoint.url.appendingPathComponent(suffix))
        request.httpMethod = "POST"
        request.httpBody = Data(body)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer \(endpoint.token)", forHTTPHeaderField: "Authorization")
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<(Data, HTTPURLResponse), any Error>?>(nil)
        let task = session.dataTask(with: request) { data, response, error in
            result.withLock {
                if let error {
                    $0 = .failure(error)
                } else if let response = response as? HTTPURLResponse {
                    $0 = .success((data ?? Data(), response))
                } else {
                    $0 = .failure(URLError(.badServerResponse))
                }
            }
            done.signal()
        }
        task.resume()
        done.wait()
        switch result.withLock({ $0 }) {
        case .success(let (data, response)):
            guard !(200..<300).contains(response.statusCode) else { return data }
            throw refusal(response, body: data)
        case .failure(let error):
            throw RepositoryError.unavailable(server: endpoint.description, reason: Self.reason(error))
        case nil:
            throw RepositoryError.unavailable(server: endpoint.description, reason: "no answer")
        }
    }

    /// The error an answer other than 2xx stands for, with the message of its JSON body.
    private func refusal(_ response: HTTPURLResponse, body: Data) -> RepositoryError {
        let server = endpoint.description
        let message = (try? JSONDecoder().decode(SyncMessages.ErrorBody.self, from: body))?.error ?? "HTTP status \(response.statusCode)"
        switch response.statusCode {
        case 401: return .replica(.tokenRefused(server: server, reason: message))
        case 403: return .replica(.notAllowed(server: server, reason: message))
        case 404: return .replica(.listGoneOnServer(list: endpoint.list, server: server))
        case 429, 503:
            let after = response.value(forHTTPHeaderField: "Retry-After").map { "; try again in \($0) s" } ?? ""
            return .unavailable(server: server, reason: message + after)
        default:
            return .replica(.refusedByServer(server: server, status: response.statusCode, reason: message))
        }
    }

    /// Reads the list's clone (`GET /lists/NAME/clone`) as it arrives: `consume` gets its lines
    /// one by one from `CloneLines` while the rest is on its way, and what it returns is
    /// returned. The body is read no faster than `consume` takes it, so that a clone of any size
    /// holds a few chunks of it at a time: URLSession hands a delegate each chunk on its delegate
    /// queue, and this queue (`PacedDelegateQueue`) holds up the session's thread, which reads
    /// the socket, while chunks wait; the server, whose writes then wait, makes the body no
    /// faster either.
    /// - Throws: what `consume` throws (the transfer is then cancelled), the error a refusal
    ///   stands for, `RepositoryError.unavailable` when the transfer fails or is silent for the
    ///   client's timeout.
    package func clone<T>(_ consume: (inout CloneLines) throws -> T) throws -> T {
        var request = URLRequest(url: endpoint.url.appendingPathComponent("clone"))
        request.setValue("application/x-ndjson", forHTTPHeaderField: "Accept")
        request.setValue("Bearer \(endpoint.token)", forHTTPHeaderField: "Authorization")
        let body = StreamedBody()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = session.configuration.timeoutIntervalForRequest
        // Silence is bounded per request; a large list's clone takes as long as it takes.
        configuration.timeoutIntervalForResource = 7 * 24 * 3_600
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: body, delegateQueue: PacedDelegateQueue())
        let task = session.dataTask(with: request)
        defer {
            body.abandon()
            task.cancel()
            session.invalidateAndCancel()
        }
        task.resume()
        let server = endpoint.description
        func unavailable(_ error: any Error) -> RepositoryError { .unavailable(server: server, reason: Self.reason(error)) }
        let response: HTTPURLResponse
        do {
            response = try body.response()
        } catch {
            throw unavailable(error)
        }
        guard (200..<300).contains(response.statusCode) else {
            var text = Data()
            while text.count < 65_536, let chunk = try? body.next() { text += chunk }
            throw refusal(response, body: text)
        }
        var lines = CloneLines(body: body, server: server)
        return try consume(&lines)
    }

    /// Follows the list's event stream (`GET /lists/NAME/events`) from version `since`, calling
    /// `changed` with each version that arrives, until the stream ends, fails (thrown), or the
    /// calling task is cancelled (then it returns). The server's keep-alive comments keep the
    /// request's deadline from ending a quiet stream.
    package func followEvents(since: ListVersion, changed: @escaping @Sendable (ListVersion) -> Void) async throws {
        var request = URLRequest(url: endpoint.url.appendingPathComponent("events"))
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.setValue("Bearer \(endpoint.token)", forHTTPHeaderField: "Authorization")
        request.setValue(String(since.rawValue), forHTTPHeaderField: "Last-Event-ID")
        let reader = EventReader(changed: changed)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = session.configuration.timeoutIntervalForRequest
        configuration.timeoutIntervalForResource = 7 * 24 * 3_600
        let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                reader.start(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        if let status = reader.status, !(200..<300).contains(status) {
            throw RepositoryError.replica(.refusedByServer(server: endpoint.description, status: status, reason: "the event stream was refused"))
        }
    }

    /// What a transport failure says, in words.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "\(error)" }
        switch error.code {
        case .timedOut: return "the server did not answer in time"
        case .cannotConnectToHost, .cannotFindHost: return "cannot connect"
        case .networkConnectionLost: return "the connection was lost"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .secureConnectionFailed:
            return "the server's certificate is not trusted, or TLS failed (\(error.localizedDescription))"
        default: return error.localizedDescription
        }
    }
}

/// Reads an event stream as it arrives: each `id:` line is a version the list reached.
private final class EventReader: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var pending: [UInt8] = []
        var status: Int?
    }
    private let state = Mutex(State())
    private let changed: @Sendable (ListVersion) -> Void

    init(changed: @escaping @Sendable (ListVersion) -> Void) {
        self.changed = changed
    }

    var status: Int? { state.withLock { $0.status } }

    func start(_ continuation: CheckedContinuation<Void, any Error>) {
        state.withLock { $0.continuation = continuation }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode
        state.withLock { $0.status = status }
        // A refusal's body is one short line: read to its end, so the task ends as any other
        // (cancelling it here left the end of the task to a race in some URLSession builds).
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let versions = state.withLock { state -> [ListVersion] in
            guard state.status.map({ (200..<300).contains($0) }) == true else { return [] }
            state.pending += data
            var versions: [ListVersion] = []
            while let newline = state.pending.firstIndex(of: 0x0A) {
                let line = String(decoding: state.pending[..<newline], as: UTF8.self)
                state.pending.removeSubrange(...newline)
                if line.hasPrefix("id:"), let number = Int64(line.dropFirst(3).trimmingCharacters(in: .whitespaces)) {
                    versions.append(ListVersion(rawValue: number))
                }
            }
            return versions
        }
        for version in versions { changed(version) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let continuation = state.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        if let error, (error as? URLError)?.code != .cancelled {
            continuation?.resume(throwing: error)
        } else {
            continuation?.resume()
        }
    }
}

/// The lines of a clone as they arrive (`HTTPSyncClient.clone`), each read as a `CloneStream`
/// item.
package struct CloneLines {
    fileprivate let body: StreamedBody
    let server: String
    private var buffer: [UInt8] = []
    /// Where the unread bytes of `buffer` start.
    private var start = 0
    private var ended = false
    /// The lines read so far (blank ones too), for errors.
    private(set) var number = 0

    fileprivate init(body: StreamedBody, server: String) {
        self.body = body
        self.server = server
    }

    /// The answer is not a clone as the protocol says: `reason` says why.
    func bad(_ reason: String) -> RepositoryError {
        .replica(.badAnswer(server: server, reason: "its clone is not what the protocol says: \(reason); nothing was written"))
    }

    /// The next item; `nil` when the body has ended (after its last line, complete or not).
    /// - Throws: `RepositoryError.replica(.badAnswer)` for a line that is not a clone's (or longer
    ///   than `CloneStream.maxLineBytes`), `.unavailable` when the transfer fails.
    mutating func next() throws -> CloneStream.Item? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                number += 1
                let lineStart = start
                start = newline + 1
                if newline == lineStart || (newline == lineStart + 1 && buffer[lineStart] == 0x0D) { continue }
                do {
                    return try buffer.withUnsafeBufferPointer { bytes in
                        try CloneStream.item(UnsafeBufferPointer(rebasing: bytes[lineStart..<newline]))
                    }
                } catch let error as CloneStream.Malformed {
                    throw bad("line \(number) is not one of a clone's: \(error.description)")
                }
            }
            guard buffer.count - start <= CloneStream.maxLineBytes else {
                throw bad("line \(number + 1) is longer than \(CloneStream.maxLineBytes) bytes")
            }
            guard !ended else {
                if start < buffer.count { throw bad("it ends inside a line (cut off?)") }
                return nil
            }
            let chunk: Data?
            do {
                chunk = try body.next()
            } catch {
                throw RepositoryError.unavailable(server: server, reason: "the clone was cut off: \(HTTPSyncClient.reason(error))")
            }
            if start > 0 {
                buffer.removeSubrange(0..<start)
                start = 0
            }
            if let chunk { buffer.append(contentsOf: chunk) } else { ended = true }
        }
    }
}

/// A response body handed on as it arrives: the delegate of the session that reads it keeps
/// at most `capacity` bytes of it, and waits for the reader (on the delegate queue) when it has
/// more; the reader waits for the next chunk.
private final class StreamedBody: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The bytes kept before the delegate waits for the reader.
    static let capacity = 1 << 20

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var chunks: [Data] = []
    private var queued = 0
    private var head: Result<HTTPURLResponse, any Error>?
    private var ending: (any Error)??
    private var abandoned = false

    /// Waits for the answer's head.
    func response() throws -> HTTPURLResponse {
        condition.lock()
        defer { condition.unlock() }
        while head == nil { condition.wait() }
        return try head!.get()
    }

    /// Waits for the next chunk of the body; `nil` once the body has ended.
    /// - Throws: the transfer's error when it failed.
    func next() throws -> Data? {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty && ending == nil { condition.wait() }
        if !chunks.isEmpty {
            let chunk = chunks.removeFirst()
            queued -= chunk.count
            condition.broadcast()
            return chunk
        }
        if let error = ending!, (error as? URLError)?.code != .cancelled { throw error }
        return nil
    }

    /// The reader stops: chunks that arrive now are dropped, and no delegate call waits.
    func abandon() {
        condition.lock()
        abandoned = true
        chunks = []
        queued = 0
        condition.broadcast()
        condition.unlock()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        condition.lock()
        if head == nil {
            head = (response as? HTTPURLResponse).map { .success($0) } ?? .failure(URLError(.badServerResponse))
        }
        condition.broadcast()
        condition.unlock()
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        condition.lock()
        defer { condition.unlock() }
        while queued >= Self.capacity && !abandoned { condition.wait() }
        guard !abandoned else { return }
        chunks.append(data)
        queued += data.count
        condition.broadcast()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        condition.lock()
        if head == nil { head = .failure(error ?? URLError(.badServerResponse)) }
        if ending == nil { ending = .some(error) }
        condition.broadcast()
        condition.unlock()
    }
}

/// A serial delegate queue that holds up whoever adds an operation while `limit` wait to run.
/// URLSession's thread adds one for each chunk it reads, and a blocked thread reads no more of
/// the socket: a slow reader of the body slows the transfer (TCP tells the server) instead of
/// letting chunks pile up in memory.
private final class PacedDelegateQueue: OperationQueue, @unchecked Sendable {
    /// The operations that may wait at once.
    static let limit = 16
    private let slots = DispatchSemaphore(value: PacedDelegateQueue.limit)

    override init() {
        super.init()
        maxConcurrentOperationCount = 1
    }

    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        slots.wait()
        let slots = slots
        super.addOperation {
            block()
            slots.signal()
        }
    }
}
