// Sync requests: the sync service's answer (`SyncService.respond(to:)`) to any bytes, as the body
// of `POST /lists/default/sync`, of `POST /lists/default/replicas`, or as the path, chosen by the
// input's first byte; with a valid edit token, on a store made once with a registered replica. It
// never traps, its status is one of the documented ones (never 500), and its body is one line of
// JSON: for an error, `{"error": "…"}` and nothing else. The bytes `@R` in an input stand for the
// registered replica's name, so that inputs reach past the replica's lookup.
import Foundation
import HTTPServer

@testable import Repository
@testable import SyncService

/// The service, its token and its replica, made once for the whole run.
final class SyncFixture: Sendable {
    let service: SyncService
    let authorization: String
    let replica: String

    init() {
        let store = ScratchStore("syncrequest").emptied()
        _ = try! store.createList(named: "default")
        let list = store.list("default")
        _ = try! list.apply(.addSection(title: "Basket"))
        _ = try! list.apply(.addRow(.text("Milk"), to: .at(0, 0)))
        _ = try! list.apply(.addRow(.field("Due", "Friday"), to: .at(0, 1)))
        var limits = SyncServiceLimits()
        limits.intentsPerPush = 64
        limits.readItems = 256
        // One token sends every input: an allowance the run cannot spend, so that each input meets
        // the same service (the allowance itself is tested by SyncServiceTests).
        limits.requestBurst = .greatestFiniteMagnitude
        service = SyncService(store: store, limits: limits)
        authorization = "Bearer " + (try! Tokens(store: store).create(list: "default", role: .edit, expiresAfter: nil).token)
        let registered = service.respond(
            to: HTTPRequest(method: "POST", path: "/lists/default/replicas", headers: ["Authorization": authorization], body: Array("{}".utf8)))
        guard registered.status == 201, case .bytes(let body) = registered.body,
            let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any], let replica = object["replica"] as? String
        else { fail("the replica could not be registered: \(registered.status)") }
        self.replica = replica
    }
}

let syncFixture = SyncFixture()

/// The statuses docs/sync-protocol.md names.
let documentedStatuses: Set<Int> = [200, 201, 400, 401, 403, 404, 405, 409, 413, 429, 503]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncRequests(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let bytes = substitutingReplica(Array(UnsafeBufferPointer(start: data + 1, count: size - 1)))
    let valid = Array(
        #"{"replica":"\#(syncFixture.replica)","known_version":0,"intents":[],"read":{"rows":[],"sections":[],"whole_sections":[]},"whole":false}"#
            .utf8)
    let request: HTTPRequest
    let headers = ["Authorization": syncFixture.authorization]
    switch data[0] % 4 {
    case 0, 1: request = HTTPRequest(method: "POST", path: "/lists/default/sync", headers: headers, body: bytes)
    case 2: request = HTTPRequest(method: "POST", path: "/lists/default/replicas", headers: headers, body: bytes)
    default: request = HTTPRequest(method: "POST", path: String(decoding: bytes, as: UTF8.self), headers: headers, body: valid)
    }
    let response = syncFixture.service.respond(to: request)
    require(documentedStatuses.contains(response.status), "status \(response.status) for \(request.path)")
    guard case .bytes(let body) = response.body else { fail("a streamed answer to \(request.path)") }
    require(!body.contains(UInt8(ascii: "\n")) && !body.contains(UInt8(ascii: "\r")), "the answer is not one line")
    guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else {
        fail("the answer is not a JSON object: \(String(decoding: body.prefix(200), as: UTF8.self))")
    }
    if response.status >= 300 {
        require(
            object.count == 1 && object["error"] is String, "an error is not {\"error\": …}: \(String(decoding: body.prefix(200), as: UTF8.self))")
    }
    return 0
}

/// `bytes` with each `@R` replaced by the registered replica's name.
func substitutingReplica(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == UInt8(ascii: "@"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "R") {
            result += syncFixture.replica.utf8
            index += 2
        } else {
            result.append(bytes[index])
            index += 1
        }
    }
    return result
}
