// Native import by round trip: whatever the reader accepts, written back out and read again,
// gives the same text byte for byte; whatever it refuses is refused with `invalidData`.
import Foundation

@testable import Repository

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNative(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let document: NativeDocument
    do {
        document = try NativeDocument(data: input)
    } catch RepositoryError.invalidData(let message) {
        require(!message.contains("\n"), "an error message is more than one line")
        return 0
    } catch {
        fail("a refusal that is not invalidData: \(error)")
    }
    let written = document.json()
    let reread: NativeDocument
    do {
        reread = try NativeDocument(data: Data(written.utf8))
    } catch {
        fail("the reader refuses what the writer wrote: \(error)\n\(written)")
    }
    require(Array(reread.json().utf8) == Array(written.utf8), "the round trip changed the document")
    require(reread.lists.count == document.lists.count)
    for (first, second) in zip(document.lists, reread.lists) {
        require(Array(first.name.utf8) == Array(second.name.utf8), "a list name changed")
        require(!first.name.utf8.contains(0) && !first.name.isEmpty, "a list name no command line can reach")
        require(first.sections.count == second.sections.count)
        for (a, b) in zip(first.sections, second.sections) {
            require(Array(a.title.utf8) == Array(b.title.utf8), "a section title changed")
            require(a.emptyText.map { Array($0.utf8) } == b.emptyText.map { Array($0.utf8) }, "an empty text changed")
            require(a.rows.count == b.rows.count)
            for (x, y) in zip(a.rows, b.rows) {
                require(x.kind == y.kind && Array(x.title.utf8) == Array(y.title.utf8), "a row changed")
                require(x.value.map { Array($0.utf8) } == y.value.map { Array($0.utf8) }, "a value changed")
            }
        }
    }
    return 0
}
