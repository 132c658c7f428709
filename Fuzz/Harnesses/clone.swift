// Clone lines: the reader of one line of a streamed clone (`CloneStream.item`), on any bytes, as a
// hostile server could send them. It never traps; what it reads, written again by the server's
// writer (`CloneStream.Writer`), reads back as the same item.
import Foundation

@testable import Repository

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCloneLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let item = try? CloneStream.item(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    var written: [UInt8] = []
    var writer = CloneStream.Writer { chunk in
        written += chunk
        return true
    }
    do {
        // A section's or a row's line waits for more before it is handed on: an end line after
        // it hands both on.
        switch item {
        case .header(let list, let version): try writer.header(list: list, version: version)
        case .section(let id, let title, let emptyText):
            try writer.section(id: id, title: title, emptyText: emptyText)
            try writer.end(sections: 1, rows: 0, digest: "")
        case .row(let id, let content):
            try writer.row(id: id, content: content)
            try writer.end(sections: 0, rows: 1, digest: "")
        case .end(let sections, let rows, let digest): try writer.end(sections: sections, rows: rows, digest: digest)
        }
    } catch {
        fail("the writer refused an item it can write: \(item)")
    }
    guard let newline = written.firstIndex(of: UInt8(ascii: "\n")) else { fail("the writer wrote no whole line for \(item)") }
    let again = written[..<newline].withUnsafeBufferPointer { line in Result { try CloneStream.item(line) } }
    guard case .success(let read) = again else {
        fail("the writer's own line does not read back: \(String(decoding: written[..<newline], as: UTF8.self))")
    }
    require(read == item, "written and read again, the item changed: \(item) became \(read)")
    return 0
}
