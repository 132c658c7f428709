// Intents: the reader of an intent's JSON (`Intent(json:)`), on any text. It never traps; what it
// reads, written again (`json`), reads back as the same intent, and is written the same way.
import Foundation

@testable import Repository

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntents(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let intent = try? Intent(json: text) else { return 0 }
    let written = intent.json
    guard let again = try? Intent(json: written) else {
        require(false, "the intent's own JSON does not read back: \(written)")
        return 0
    }
    require(again == intent, "written and read again, the intent changed: \(written)")
    require(again.json == written, "the same intent was written two ways: \(written)")
    return 0
}
