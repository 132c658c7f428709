@testable import CommandLineSupport
// Shell words and arguments: whatever `ShellWords.split` makes of a line, quoting the words
// and splitting again gives them back byte for byte; so does quoting any list of words (the
// input read as words separated by NUL). The words then go through the command-line and the
// session parsers, whose errors, as reported, must stay one short line. Escaping the input as
// text leaves nothing a terminal would act on or hide, and escaping that again changes nothing.
@testable import Repository
@testable import SectionCLI
@testable import Transfer

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

/// What is printed of user text: nothing a terminal acts on or hides, and escaping it again
/// changes nothing.
private func checkEscaping(_ text: String) {
    let shown = TextEscaping.escaped(text)
    require(!shown.unicodeScalars.contains(where: TextEscaping.needsEscape), "an unsafe scalar left in \(shown.debugDescription)")
    require(TextEscaping.escaped(shown) == shown, "escaping twice changed \(shown.debugDescription)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWords(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    checkEscaping(String(decoding: input, as: UTF8.self))
    if let line = String(validating: input, as: UTF8.self), let words = try? ShellWords.split(line) {
        checkRoundTrip(words)
        checkParsers(words)
    }
    let words = input.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    checkRoundTrip(words)
    checkParsers(words)
    return 0
}
