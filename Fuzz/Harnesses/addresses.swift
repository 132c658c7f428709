@testable import CommandLineSupport
// Addresses: every word either is refused with a usage error of one short line, or names a
// section, row or destination that, written back as an address, reads back the same.
@testable import Repository
@testable import SectionCLI
@testable import Transfer

private func text(_ section: SectionRef) -> String {
    switch section {
    case .index(let index): return "\(index)"
    case .id(let id): return "#\(id)"
    case .title(let title): return title
    }
}

private func text(_ index: RowIndex) -> String {
    switch index {
    case .index(let index): return "\(index)"
    case .end: return "end"
    }
}

/// Equality byte for byte: titles that Swift's `==` calls equal may differ.
private func same(_ a: SectionRef, _ b: SectionRef) -> Bool {
    switch (a, b) {
    case (.title(let x), .title(let y)): return Array(x.utf8) == Array(y.utf8)
    default: return a == b
    }
}

private func same(_ a: RowRef, _ b: RowRef) -> Bool {
    switch (a, b) {
    case (.path(let s, let i), .path(let t, let j)): return same(s, t) && i == j
    default: return a == b
    }
}

private func checkRefusal(_ error: CLIError) {
    require(error.exitCode == .usage, "an address error that is not a usage error")
    // As reported: escaped, one line, and short (an echoed scalar is at most 6 bytes escaped).
    let shown = TextEscaping.escaped(error.message)
    require(!shown.contains("\n") && shown.utf8.count < 1_500, "an error of \(shown.utf8.count) bytes")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAddresses(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let word = String(validating: UnsafeBufferPointer(start: data, count: size), as: UTF8.self) else { return 0 }

    let section = SectionAddress(word)
    require(section.literal == word, "section \(word) does not keep the word it was read from")
    require(same(SectionAddress(text(section.reference)).reference, section.reference), "section \(word) → \(section) does not read back")

    do throws(CLIError) {
        let row = try RowAddress(word)
        require(row.literal == word, "row \(word) does not keep the word it was read from")
        let written: String
        switch row.reference {
        case .id(let id): written = "#\(id)"
        case .path(let section, let index): written = text(section) + ":" + text(index)
        }
        let again = try RowAddress(written)
        require(same(again.reference, row.reference), "row \(word) → \(row) does not read back from \(written)")
    } catch {
        checkRefusal(error)
    }

    do throws(CLIError) {
        let destination = try DestinationAddress(word).destination
        let written = text(destination.section) + ":" + text(destination.index)
        let again = try DestinationAddress(written).destination
        require(same(again.section, destination.section) && again.index == destination.index, "destination \(word) does not read back")
    } catch {
        checkRefusal(error)
    }

    do throws(CLIError) {
        let index = try RowIndexAddress(word).index
        let again = try RowIndexAddress(text(index)).index
        require(again == index, "row index \(word) does not read back")
    } catch {
        checkRefusal(error)
    }
    do throws(CLIError) {
        let index = try SectionIndexAddress(word).index
        let again = try SectionIndexAddress("\(index)").index
        require(again == index, "section index \(word) does not read back")
    } catch {
        checkRefusal(error)
    }
    return 0
}
