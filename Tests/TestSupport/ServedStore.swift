import Foundation
import HTTPServer
import Repository
import SyncService
import Synchronization

/// A store served by the sync service on a free loopback port, as `sectionctl serve` serves it,
/// for as long as the value lives; with tokens made for its lists, and a count of the requests
/// it answered.
package final class ServedStore: Sendable {
    package let store: SectionStore
    package let service: SyncService
    private let server: HTTPServer
    private let answered = RequestLog()

    /// The requests answered, as "METHOD PATH STATUS".
    private final class RequestLog: Sendable {
        let lines = Mutex<[String]>([])
    }

    package init(_ store: SectionStore, limits: SyncServiceLimits = SyncServiceLimits(), assets: PageAssets = PageAssets()) throws {
        self.store = store
        let service = SyncService(store: store, limits: limits, assets: assets)
        self.service = service
        let answered = answered
        server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits.http) { request in
            let response = service.respond(to: request)
            answered.lines.withLock { $0.append("\(request.method) \(request.path) \(response.status)") }
            return response
        }
    }

    deinit {
        server.stop()
    }

    /// The port it listens on.
    package var port: UInt16 { server.port }

    /// `http://127.0.0.1:PORT`.
    package var origin: String { "http://127.0.0.1:\(server.port)" }

    /// The address of list `name` (percent-encoded), on `port` (a proxy's) or the service's own.
    package func address(of name: String, port: UInt16? = nil) -> String {
        "http://127.0.0.1:\(port ?? server.port)/lists/" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)
    }

    /// A new token of list `name`.
    package func token(for name: String, role: TokenRole = .edit) throws -> String {
        try Tokens(store: store).create(list: name, role: role, expiresAfter: nil).token
    }

    /// The requests answered so far, as "METHOD PATH STATUS", and forgets them.
    package func takeRequests() -> [String] {
        answered.lines.withLock { requests in
            defer { requests = [] }
            return requests
        }
    }
}
