import CommandLineSupport
import Repository

// Reading the ways people name sections and rows on the command line.
//
// - A section: an index (`2`: any all-digit word is an index), an id (`#7`), or an exact
//   title (`Done`). A section titled "2" is reached by its id.
// - A row: `S:R` with a 0-based row index, `S:end` for the last row, or `#ID`. `S` is any
//   section form; the text after the *last* colon is the row part, so titles may contain colons.
// - A destination: `S:R` (the row's index after the change) or `S:end` (append).
//
// Ids may be negative (`#-1`) inside an edit session, for sections and rows it created.
//
// Every address keeps the word it was read from (`literal`), and says which numbers and ids in
// it the store may report an error about (`places`): such an error is then worded with the
// number as the person wrote it (`row index 007 …`, `no row #012 …`), which a number too large
// for an `Int` needs most of all.

/// A section as named on the command line: by index, `#ID` or exact title.
struct SectionAddress: Hashable, Sendable {
    /// The section, as the store looks it up.
    let reference: SectionRef
    /// The word it was read from.
    let literal: String

    /// Reads a word: any word names a section (one that is not an index or an id is a title).
    init(_ word: String) {
        literal = word
        if let index = Numerals.allDigits(word) {
            reference = .index(index)
        } else if let id = Numerals.id(word) {
            reference = .id(SectionID(id))
        } else {
            reference = .title(word)
        }
    }

    /// The index or id in it, as written.
    var places: [WrittenPlace] {
        switch reference {
        case .index(let index): [.sectionIndex(index, literal: literal)]
        case .id(let id): [.sectionID(id, literal: literal)]
        case .title: []
        }
    }
}

/// A row's place in its section as written: a number (negative ones are left for the store to
/// refuse) or `end`.
struct RowIndexAddress: Hashable, Sendable {
    /// The place, as the store takes it.
    let index: RowIndex
    /// The word it was read from.
    let literal: String

    /// Reads `end` or a number.
    /// - Throws: `CLIError` (usage) for anything else.
    init(_ word: String) throws(CLIError) {
        literal = word
        if word == "end" {
            index = .end
            return
        }
        guard let number = Numerals.integer(word) else {
            throw CLIError("a row index is a number or 'end', not \"\(TextEscaping.escaped(TextEscaping.excerpt(word)))\"", exitCode: .usage)
        }
        index = .index(number)
    }

    /// The place as an error about a row index in `section` names it.
    func place(in section: SectionAddress) -> WrittenPlace {
        .rowIndex(index, section: section.reference, literal: literal)
    }
}

/// A row as named on the command line: `S:R`, `S:end` or `#ID`.
struct RowAddress: Hashable, Sendable {
    /// The two ways to name a row.
    enum Form: Hashable, Sendable {
        /// `#ID`.
        case id(RowID)
        /// `S:R` or `S:end`.
        case path(SectionAddress, RowIndexAddress)
    }

    /// What the word says.
    let form: Form
    /// The word it was read from.
    let literal: String

    /// Reads `S:R`, `S:end` or `#ID`.
    /// - Throws: `CLIError` (usage) for a word that is none of them.
    init(_ word: String) throws(CLIError) {
        literal = word
        if let id = Numerals.id(word) {
            form = .id(RowID(id))
        } else {
            let (section, index) = try Numerals.sectionAndIndex(word, role: "row")
            form = .path(section, index)
        }
    }

    /// The row, as the store looks it up.
    var reference: RowRef {
        switch form {
        case .id(let id): .id(id)
        case .path(let section, let index): .path(section.reference, index.index)
        }
    }

    /// The id, or the section and row index in it, as written.
    var places: [WrittenPlace] {
        switch form {
        case .id(let id): [.rowID(id, literal: literal)]
        case .path(let section, let index): section.places + [index.place(in: section)]
        }
    }
}

/// Where a row goes, as named on the command line: `S:R` (its index after the change) or
/// `S:end` (after the last row).
struct DestinationAddress: Hashable, Sendable {
    /// The section it goes to.
    let section: SectionAddress
    /// Its index there.
    let index: RowIndexAddress
    /// The word it was read from.
    let literal: String

    /// Reads `S:R` or `S:end`.
    /// - Throws: `CLIError` (usage) for a row id (which names a row, not a place) or a word
    ///   that is no address.
    init(_ word: String) throws(CLIError) {
        literal = word
        if Numerals.id(word) != nil {
            throw CLIError(
                "a destination is S:R or S:end, not a row id (\(TextEscaping.escaped(TextEscaping.excerpt(word))))", exitCode: .usage)
        }
        (section, index) = try Numerals.sectionAndIndex(word, role: "destination")
    }

    /// The destination, as the store takes it.
    var destination: RowDestination { RowDestination(section: section.reference, index: index.index) }

    /// The section and row index in it, as written.
    var places: [WrittenPlace] { section.places + [index.place(in: section)] }
}

/// A section's index as a destination (`section add --at I`, `section move S I`), as written.
struct SectionIndexAddress: Hashable, Sendable {
    /// The index (negative ones are left for the store to refuse).
    let index: Int
    /// The word it was read from.
    let literal: String

    /// Reads a number.
    /// - Throws: `CLIError` (usage) for anything else.
    init(_ word: String) throws(CLIError) {
        literal = word
        guard let number = Numerals.integer(word) else {
            throw CLIError("a section index is a number, not \"\(TextEscaping.escaped(TextEscaping.excerpt(word)))\"", exitCode: .usage)
        }
        index = number
    }

    /// The index, as written.
    var places: [WrittenPlace] { [.sectionIndex(index, literal: literal)] }
}

/// A number or id of a command line that the store may report an error about, with the word
/// it was written as: what `CLIError.about(_:writtenAs:)` words the error with.
enum WrittenPlace: Hashable, Sendable {
    /// A section index: a section named by index, the `S` of `S:R`, or a destination index.
    case sectionIndex(Int, literal: String)
    /// A section named by `#ID`.
    case sectionID(SectionID, literal: String)
    /// The `R` of `S:R` (or `end`), in the section `S` names.
    case rowIndex(RowIndex, section: SectionRef, literal: String)
    /// A row named by `#ID`.
    case rowID(RowID, literal: String)
}

extension [WrittenPlace] {
    /// Runs `body`, which asks the store about these places: a store error about one of them is
    /// reported with the place as written; any other error is thrown as it is.
    func naming<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RepositoryError {
            guard let reported = CLIError.about(error, writtenAs: self) else { throw error }
            throw reported
        }
    }
}

/// The words addresses are made of.
private enum Numerals {
    /// `S:R` or `S:end`, split at the last colon.
    static func sectionAndIndex(_ word: String, role: String) throws(CLIError) -> (SectionAddress, RowIndexAddress) {
        guard let colon = word.lastIndex(of: ":"), colon != word.startIndex else {
            throw CLIError(
                "\"\(TextEscaping.escaped(TextEscaping.excerpt(word)))\" is not a \(role) address (use S:R, S:end\(role == "row" ? " or #ID" : ""))",
                exitCode: .usage)
        }
        let index = try RowIndexAddress(String(word[word.index(after: colon)...]))
        return (SectionAddress(String(word[..<colon])), index)
    }

    /// The value of a word made only of ASCII digits. Too large a number counts as an index far
    /// out of range rather than as a title.
    static func allDigits(_ word: String) -> Int? {
        guard !word.isEmpty, word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(word) ?? Int.max
    }

    /// `#123` or `#-4`.
    static func id(_ word: String) -> Int64? {
        guard word.hasPrefix("#") else { return nil }
        let body = word.dropFirst()
        let digits = body.hasPrefix("-") ? body.dropFirst() : body
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(body)
    }

    /// An integer, possibly negative. Too large a number counts as one far out of range.
    static func integer(_ word: String) -> Int? {
        let digits = word.hasPrefix("-") ? word.dropFirst() : Substring(word)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(word) ?? (word.hasPrefix("-") ? Int.min : Int.max)
    }
}
