import Foundation

/// A list's clone as the sync service streams it (`GET /lists/NAME/clone`,
/// docs/sync-protocol.md): one JSON object a line, read at one version of the list. A header
/// (`{"format":1,"list":"NAME","version":V}`), then each section (`{"section":ID,"title":…,
/// "empty_text":…}`) followed by its rows (`{"row":ID,"kind":…,"title":…,"value":…}`), in order,
/// then the end (`{"end":true,"sections":N,"rows":M,"digest":"…"}`), whose counts and digest
/// (`ListDigest`) cover what came before it. A clone without its end was cut off. Empty lines
/// are nothing (the server sends one when it has been quiet a while).
///
/// The server writes it as it reads the list, and the client writes each item into its file as
/// it arrives: neither holds the list.
enum CloneStream {
    /// The format this build writes and reads: the header's `format`.
    static let format: Int64 = 1
    /// The longest line a client takes: longer is a hostile or broken server.
    static let maxLineBytes = 8 << 20
    /// How many bytes the server gathers before handing them to the connection.
    static let chunkBytes = 64 << 10

    /// One line of a clone, read.
    enum Item: Equatable {
        case header(list: String, version: ListVersion)
        case section(id: Int64, title: String, emptyText: String?)
        case row(id: Int64, content: RowContent)
        case end(sections: Int64, rows: Int64, digest: String)
    }

    /// The clone's maker went away (its client left): the read stops.
    struct Abandoned: Error {}

    // MARK: - Writing (the server)

    /// Gathers lines and hands them on in chunks of about `chunkBytes`.
    struct Writer {
        private var buffer: [UInt8] = []
        private let send: ([UInt8]) -> Bool

        init(_ send: @escaping ([UInt8]) -> Bool) {
            self.send = send
            buffer.reserveCapacity(CloneStream.chunkBytes + 4096)
        }

        mutating func header(list: String, version: ListVersion) throws {
            append("{\"format\":\(CloneStream.format),\"list\":")
            appendString(list)
            append(",\"version\":\(version.rawValue)}\n")
            try flush()
        }

        mutating func section(id: Int64, title: String, emptyText: String?) throws {
            append("{\"section\":\(id),\"title\":")
            appendString(title)
            append(",\"empty_text\":")
            appendString(emptyText)
            append("}\n")
            try flushIfFull()
        }

        mutating func row(id: Int64, content: RowContent) throws {
            append("{\"row\":\(id),\"kind\":\"\(content.kind.rawValue)\",\"title\":")
            appendString(content.title)
            append(",\"value\":")
            appendString(content.value)
            append("}\n")
            try flushIfFull()
        }

        mutating func end(sections: Int64, rows: Int64, digest: String) throws {
            append("{\"end\":true,\"sections\":\(sections),\"rows\":\(rows),\"digest\":")
            appendString(digest)
            append("}\n")
            try flush()
        }

        private mutating func append(_ text: String) {
            buffer.append(contentsOf: text.utf8)
        }

        /// A JSON string (or `null`): UTF-8 as it is, with `"`, `\` and control characters escaped.
        private mutating func appendString(_ text: String?) {
            guard let text else { return append("null") }
            buffer.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    buffer.append(UInt8(ascii: "\\"))
                    buffer.append(byte)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    buffer.append(contentsOf: Array("\\u00".utf8))
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0xF)])
                default:
                    buffer.append(byte)
                }
            }
            buffer.append(UInt8(ascii: "\""))
        }

        private mutating func flushIfFull() throws {
            if buffer.count >= CloneStream.chunkBytes { try flush() }
        }

        private mutating func flush() throws {
            guard !buffer.isEmpty else { return }
            guard send(buffer) else { throw Abandoned() }
            buffer.removeAll(keepingCapacity: true)
        }
    }

    // MARK: - Reading (the client)

    /// A JSON value of a clone's line: the lines hold nothing else.
    enum Value: Equatable {
        case string(String)
        case integer(Int64)
        case boolean(Bool)
        case null
    }

    /// Why a line is not one of the clone's.
    struct Malformed: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The members a clone's lines have.
    enum Member: Int, CaseIterable {
        case format, list, version, section, title, emptyText, row, kind, value, end, sections, rows, digest

        /// Its name in JSON.
        var name: String {
            switch self {
            case .emptyText: return "empty_text"
            default: return "\(self)"
            }
        }

        /// The members by the bytes of their names.
        static let byName: [(bytes: [UInt8], member: Member)] = allCases.map { (Array($0.name.utf8), $0) }
    }

    /// The members of one line, as read.
    struct Members {
        private var values: [Value?] = Array(repeating: nil, count: Member.allCases.count)

        subscript(member: Member) -> Value? {
            get { values[member.rawValue] }
            set { values[member.rawValue] = newValue }
        }

        var present: [Member] { Member.allCases.filter { self[$0] != nil } }
    }

    /// The item a line holds (its bytes, without the newline).
    static func item(_ line: UnsafeBufferPointer<UInt8>) throws -> Item {
        let object = try members(line)
        func string(_ member: Member) throws -> String {
            guard case .string(let text) = object[member] else { throw Malformed("its \"\(member.name)\" is not a string") }
            return text
        }
        func optionalString(_ member: Member) throws -> String? {
            switch object[member] {
            case .string(let text): return text
            case .null: return nil
            default: throw Malformed("its \"\(member.name)\" is neither a string nor null")
            }
        }
        func integer(_ member: Member, least: Int64) throws -> Int64 {
            guard case .integer(let number) = object[member], number >= least else {
                throw Malformed("its \"\(member.name)\" is not a number ≥ \(least)")
            }
            return number
        }
        func only(_ members: Set<Member>) throws {
            if let other = object.present.first(where: { !members.contains($0) }) {
                throw Malformed("it has a member \"\(other.name)\" that a line of its kind has not")
            }
        }
        if object[.row] != nil {
            try only([.row, .kind, .title, .value])
            guard let kind = RowKind(rawValue: try string(.kind)) else { throw Malformed("its \"kind\" is not text, topic or field") }
            let value = try optionalString(.value)
            guard value == nil || kind == .field else { throw Malformed("a \(kind.rawValue) row has a value") }
            return .row(id: try integer(.row, least: 1), content: RowContent(kind: kind, title: try string(.title), value: value))
        }
        if object[.section] != nil {
            try only([.section, .title, .emptyText])
            return .section(id: try integer(.section, least: 1), title: try string(.title), emptyText: try optionalString(.emptyText))
        }
        if object[.end] != nil {
            try only([.end, .sections, .rows, .digest])
            guard object[.end] == .boolean(true) else { throw Malformed("its \"end\" is not true") }
            return .end(sections: try integer(.sections, least: 0), rows: try integer(.rows, least: 0), digest: try string(.digest))
        }
        if object[.format] != nil {
            try only([.format, .list, .version])
            let format = try integer(.format, least: 0)
            guard format == Self.format else { throw Malformed("it is of format \(format); this build reads format \(Self.format)") }
            return .header(list: try string(.list), version: ListVersion(rawValue: try integer(.version, least: 0)))
        }
        throw Malformed("it is neither a header, a section, a row nor the end")
    }

    /// The members of a JSON object whose members are strings, integers, booleans or null, as a
    /// clone's lines are; anything else (nesting, fractions, a member no line has or one named
    /// twice, text that is not UTF-8, bytes after the object) is refused.
    static func members(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Members {
        var reader = LineReader(bytes: bytes)
        var members = Members()
        try reader.expect(UInt8(ascii: "{"))
        if !reader.take(UInt8(ascii: "}")) {
            repeat {
                let name = try reader.readName()
                guard let member = Member.byName.first(where: { $0.bytes.elementsEqual(name) })?.member else {
                    throw Malformed("it has a member \"\(String(decoding: name, as: UTF8.self))\" no clone line has")
                }
                try reader.expect(UInt8(ascii: ":"))
                let value = try reader.readValue()
                guard members[member] == nil else { throw Malformed("it names \"\(member.name)\" twice") }
                members[member] = value
            } while reader.take(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "}"))
        }
        reader.skipSpace()
        guard reader.index == bytes.count else { throw Malformed("there is more after the object") }
        return members
    }

    /// Reads a line's JSON, byte by byte.
    struct LineReader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0D { index += 1 }
        }

        /// Takes `byte` (after any space) if it is next.
        mutating func take(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func expect(_ byte: UInt8) throws {
            guard take(byte) else { throw Malformed("it is not a JSON object of strings, numbers and null") }
        }

        /// A member's name, as its bytes: the names of a clone's lines have no escapes.
        mutating func readName() throws -> UnsafeBufferPointer<UInt8> {
            try expect(UInt8(ascii: "\""))
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") { index += 1 }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw Malformed("a member's name is not one of a clone's") }
            index += 1
            return UnsafeBufferPointer(rebasing: bytes[start..<index - 1])
        }

        private func hexDigit(_ byte: UInt8) throws -> UInt32 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw Malformed("it has a bad \\u escape")
            }
        }

        /// The four hex digits of a `\\u` escape.
        private mutating func escapedUnit() throws -> UInt32 {
            guard index + 4 <= bytes.count else { throw Malformed("it has a bad \\u escape") }
            var value: UInt32 = 0
            for offset in 0..<4 { value = value << 4 | (try hexDigit(bytes[index + offset])) }
            index += 4
            return value
        }

        mutating func readString() throws -> String {
            try expect(UInt8(ascii: "\""))
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 { index += 1 }
            guard index < bytes.count else { throw Malformed("a string is not closed") }
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                guard let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]), as: UTF8.self) else {
                    throw Malformed("a string is not UTF-8")
                }
                return text
            }
            var decoded = Array(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while true {
                guard index < bytes.count else { throw Malformed("a string is not closed") }
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    guard let text = String(validating: decoded, as: UTF8.self) else { throw Malformed("a string is not UTF-8") }
                    return text
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { throw Malformed("a string is not closed") }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try escapedUnit()
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                                throw Malformed("a string holds half a surrogate pair")
                            }
                            index += 2
                            let low = try escapedUnit()
                            guard (0xDC00..<0xE000).contains(low) else { throw Malformed("a string holds half a surrogate pair") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw Malformed("a string holds half a surrogate pair") }
                        decoded.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        throw Malformed("a string has an unknown escape")
                    }
                case 0..<0x20:
                    throw Malformed("a string holds a control character")
                default:
                    decoded.append(byte)
                }
            }
        }

        mutating func readValue() throws -> Value {
            skipSpace()
            guard index < bytes.count else { throw Malformed("a member has no value") }
            func word(_ text: StaticString, _ value: Value) throws -> Value {
                let count = text.utf8CodeUnitCount
                guard index + count <= bytes.count,
                    UnsafeBufferPointer(rebasing: bytes[index..<index + count]).elementsEqual(
                        UnsafeBufferPointer(start: text.utf8Start, count: count))
                else {
                    throw Malformed("a value is not a string, an integer, true, false or null")
                }
                index += count
                return value
            }
            switch bytes[index] {
            case UInt8(ascii: "\""): return .string(try readString())
            case UInt8(ascii: "n"): return try word("null", .null)
            case UInt8(ascii: "t"): return try word("true", .boolean(true))
            case UInt8(ascii: "f"): return try word("false", .boolean(false))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let negative = bytes[index] == UInt8(ascii: "-")
                if negative { index += 1 }
                var number: Int64 = 0
                let start = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                    let (times, overflow) = number.multipliedReportingOverflow(by: 10)
                    let (sum, overflowAgain) = times.addingReportingOverflow(Int64(bytes[index] - UInt8(ascii: "0")))
                    guard !overflow, !overflowAgain else { throw Malformed("a number is too large") }
                    number = sum
                    index += 1
                }
                guard index > start, index - start == 1 || bytes[start] != UInt8(ascii: "0") else { throw Malformed("a number is malformed") }
                if index < bytes.count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                    throw Malformed("a number is not a whole number")
                }
                return .integer(negative ? -number : number)
            default:
                throw Malformed("a value is not a string, an integer, true, false or null")
            }
        }
    }
}

extension SectionStore {
    /// Streams list `name` as a clone (`CloneStream`), read in one read transaction: one version,
    /// with no write lock held (on PostgreSQL a REPEATABLE READ READ ONLY transaction, whose rows
    /// arrive one by one). `opened` is called once the list is found, before anything is written;
    /// `write` gets the lines in chunks, and returns false when the client has left (the read
    /// then stops, and this returns).
    /// - Throws: `SyncRefusal` 404 (before `opened`) when there is no such list; what the store
    ///   throws while reading.
    package func streamClone(list name: String, opened: () -> Void, write: @escaping ([UInt8]) -> Bool) throws {
        do {
            try streamCloneLines(list: name, opened: opened, write: write)
        } catch is CloneStream.Abandoned {
        }
    }

    private func streamCloneLines(list name: String, opened: () -> Void, write: @escaping ([UInt8]) -> Bool) throws {
        try read { db in
            guard let list = try db.listRecordIfAny(named: name) else { throw SyncRefusal.notFound("no list is named \"\(name)\"") }
            opened()
            var out = CloneStream.Writer(write)
            try out.header(list: list.name, version: list.version)
            var digest = ListDigest.Running()
            var section: Int64?
            var sections: Int64 = 0
            var rows: Int64 = 0
            try db.forEachSectionAndRow(of: list) { item, row in
                if section != item.id {
                    section = item.id
                    sections += 1
                    digest.add(section: item.id, title: item.title, emptyText: item.emptyText)
                    try out.section(id: item.id, title: item.title, emptyText: item.emptyText)
                }
                guard let row else { return }
                rows += 1
                digest.add(row: row.id.rawValue, content: row.content)
                try out.row(id: row.id.rawValue, content: row.content)
            }
            try out.end(sections: sections, rows: rows, digest: digest.hex)
        }
    }
}
