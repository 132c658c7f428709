// The schema SQL that check compares (SchemaCatalog.normalized, over what sqlite_schema holds,
// which anyone with the sqlite3 shell can write): whatever the text, comments, quotes around
// names and spacing go, and what is left is one line: outside quoted text, no whitespace but
// single spaces, none at either end or next to brackets, commas and semicolons, and nothing in
// upper case. Two texts that differ only in the spacing between words normalize alike.
import Foundation

@testable import Repository

/// Checks the shape of a normalized text, walking its quoted text as the normalizer does.
private func checkShape(_ text: String, of input: String) {
    let characters = Array(text)
    require(characters.first != " " && characters.last != " ", "spaces at an end: \(text.debugDescription) from \(input.debugDescription)")
    var index = 0
    var inQuote = false
    while index < characters.count {
        let character = characters[index]
        if inQuote {
            if character == "'" {
                if index + 1 < characters.count && characters[index + 1] == "'" { index += 1 } else { inQuote = false }
            }
        } else if character == "'" {
            inQuote = true
        } else {
            require(!character.isWhitespace || character == " ", "whitespace \(character.debugDescription) in \(text.debugDescription)")
            if character == " " {
                let next = index + 1 < characters.count ? characters[index + 1] : "x"
                require(next != " " && !"(),;".contains(next), "a space before \(next) in \(text.debugDescription)")
                require(index == 0 || !"(),;".contains(characters[index - 1]), "a space after a bracket in \(text.debugDescription)")
            }
            require(String(character) == String(character).lowercased(), "upper case \(character) in \(text.debugDescription)")
        }
        index += 1
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSchemaSQL(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let normalized = SchemaCatalog.normalized(input)
    checkShape(normalized, of: input)
    // Words of letters only, spaced any way: the same text.
    let words = input.split { !$0.isLetter || !$0.isASCII }.map(String.init)
    let spaced = words.enumerated().map { $0.offset % 2 == 0 ? $0.element : $0.element.uppercased() }
    require(
        SchemaCatalog.normalized(words.joined(separator: " ")) == SchemaCatalog.normalized(spaced.joined(separator: " \n\t  ")),
        "spacing or case changed \(words)")
    return 0
}
