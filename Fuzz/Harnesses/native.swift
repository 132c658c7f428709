// Native import by round trip: whatever the reader accepts, imported, exported, imported into a
// second database and exported again, gives the same text byte for byte; whatever it refuses is
// refused with `invalidData`, in one line, and no list name it accepts is one no command line
// can reach (empty, or holding NUL).
import Foundation

@testable import Repository
@testable import Transfer

private let first = ScratchStore("native-first")
private let second = ScratchStore("native-second")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNative(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let store = first.emptied()
    do {
        try store.importJSON(input, policy: .replace)
    } catch RepositoryError.invalidData(let message) {
        require(!message.contains("\n"), "an error message is more than one line")
        require(try! store.lists().isEmpty, "a refused import wrote a list")
        return 0
    } catch {
        fail("a refusal that is not invalidData: \(error)")
    }
    for list in try! store.lists() {
        require(!list.name.utf8.contains(0) && !list.name.isEmpty, "a list name no command line can reach")
    }
    let written = try! store.exportAllJSON()
    let copy = second.emptied()
    do {
        try copy.importJSON(Data(written.utf8), policy: .replace)
    } catch {
        fail("the reader refuses what the writer wrote: \(error)\n\(written)")
    }
    require(Array(try! copy.exportAllJSON().utf8) == Array(written.utf8), "the round trip changed the document")
    return 0
}
