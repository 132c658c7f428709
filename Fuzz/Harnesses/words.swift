// Shell words and arguments: whatever `ShellWords.split` makes of a line, quoting the words
// and splitting again gives them back byte for byte; so does quoting any list of words (the
// input read as words separated by NUL). The words then go through the command-line and the
// session parsers, whose errors, as reported, must stay one short line.
@testable import Repository
@testable import Transfer
@testable import SectionCLI

private func bytes(_ words: [String]) -> [[UInt8]] { words.map { Array($0.utf8) } }

private func checkRoundTrip(_ words: [String]) {
    let line = words.map(ShellWords.quote).joined(separator: " ")
    guard let again = try? ShellWords.split(line) else { fail("quoted words do not split: \(line)") }
    require(bytes(again) == bytes(words), "quoting and splitting changed the words: \(words) → \(again)")
}

private func checkParsers(_ words: [String]) {
    for parser in [Catalog.parser, Catalog.sessionParser] {
        do {
            _ = try parser.parse(words)
        } catch {
            // As reported: escaped, so one line whatever the words hold, and short however many
            // or long they are (each echoed scalar is at most 6 bytes escaped).
            let shown = TextEscaping.escaped(error.message)
            require(!shown.contains("\n"), "an error of more than one line")
            require(shown.utf8.count < 3_000, "an error of \(shown.utf8.count) bytes")
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWords(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    if let line = String(validating: input, as: UTF8.self), let words = try? ShellWords.split(line) {
        checkRoundTrip(words)
        checkParsers(words)
    }
    let words = input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    checkRoundTrip(words)
    checkParsers(words)
    return 0
}
