// Journal changesets: the reader of the JSON a changeset is stored as (`Changeset(json:)`), ids
// included, on any text. It never traps; what it reads, written again (`json`), reads back as
// the same changeset, ids and all; and a changeset read with ids keeps them.
import Foundation

@testable import Repository

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChangesets(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let changeset = try? Changeset(json: text) else { return 0 }
    let written = changeset.json
    guard let again = try? Changeset(json: written) else {
        require(false, "the changeset's own JSON does not read back: \(written)")
        return 0
    }
    require(again == changeset, "written and read again, the changeset changed: \(written)")
    require(again.hasIDs == changeset.hasIDs, "the ids were lost or made up: \(written)")
    return 0
}
