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
        let server = endpoint.description
        switch result.withLock({ $0 }) {
        case .success(let (data, response)):
            guard !(200..<300).contains(response.statusCode) else { return data }
            let message = (try? JSONDecoder().decode(SyncMessages.ErrorBody.self, from: data))?.error ?? "HTTP status \(response.statusCode)"
            switch response.statusCode {
            case 401: throw RepositoryError.replica(.tokenRefused(server: server, reason: message))
            case 403: throw RepositoryError.replica(.notAllowed(server: server, reason: message))
            case 404: throw RepositoryError.replica(.listGoneOnServer(list: endpoint.list, server: server))
            case 429, 503:
                let after = response.value(forHTTPHeaderField: "Retry-After").map { "; try again in \($0) s" } ?? ""
                throw RepositoryError.unavailable(server: server, reason: message + after)
            default:
                throw RepositoryError.replica(.refusedByServer(server: server, status: response.statusCode, reason: message))
            }
        case .failure(let error):
            throw RepositoryError.unavailable(server: server, reason: Self.reason(error))
        case nil:
            throw RepositoryError.unavailable(server: server, reason: "no answer")
        }
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
    private static func reason(_ error: any Error) -> String {
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
