import CPostgres

/// A libpq connection string as libpq itself reads it (`PQconninfoParse`): a `postgresql://`
/// (or `postgres://`) URI, or `key=value` pairs.
///
/// What messages show of it (`masked`) is rebuilt from the options libpq parsed, with every
/// option libpq marks secret (`password`, `sslpassword`: display character `*`) written `***`;
/// nothing is cut out of the text as typed, so no way of writing a password can slip past. A
/// string libpq cannot read is refused (`MalformedConnectionString`) with a reason that quotes
/// none of it; so is a URI that libpq reads, but not as it was most likely meant: an unencoded
/// `@` or `/` in a user name or password turns part of it into the host, port or database name.
public struct ConnectionString: Hashable, Sendable {
    /// One option the string sets.
    public struct Option: Hashable, Sendable {
        /// libpq's keyword (`host`, `dbname`, `password`, …).
        public var keyword: String
        /// The value, percent-decoded (URI) or unquoted (key=value), as libpq uses it.
        public var value: String
        /// Whether libpq marks the option secret: messages never show its value.
        public var isSecret: Bool
    }

    /// How the string was written.
    public enum Form: Hashable, Sendable {
        /// A URI with this scheme (`postgresql` or `postgres`).
        case uri(scheme: String)
        /// `key=value` pairs.
        case keywordValue
    }

    /// How the string was written: `masked` is written the same way.
    public let form: Form
    /// The options the string sets, in libpq's order; the `PG*` variables and defaults are not
    /// among them (libpq applies those when it connects).
    public let options: [Option]

    /// What `masked` writes in place of a secret value.
    public static let mask = "***"

    /// Parses `text` as libpq does.
    /// - Throws: `MalformedConnectionString` when libpq cannot read it, or reads a URI with an
    ///   unencoded `@` or `/` in its user name or password, or a port that is not a number;
    ///   `LibPQUnavailable` when libpq cannot be loaded.
    public init(parsing text: String) throws {
        try LibPQ.load()
        if text.utf8.contains(0) { throw MalformedConnectionString(reason: "it holds a NUL character") }
        let scheme = Self.uriScheme(of: text)
        if let scheme, scheme != scheme.lowercased() {
            throw MalformedConnectionString(reason: "libpq reads the scheme in lower case only: write \(scheme.lowercased())://")
        }
        var message: UnsafeMutablePointer<CChar>?
        guard let parsed = PQconninfoParse(text, &message) else {
            let reason = message.map { Self.reason(forLibpqMessage: String(cString: $0)) } ?? "out of memory"
            if let message { PQfreemem(message) }
            throw MalformedConnectionString(reason: reason)
        }
        options = Self.options(takingOwnershipOf: parsed)
        form = scheme.map { .uri(scheme: $0) } ?? .keywordValue
        if let scheme { try Self.checkAuthority(Array(text.utf8.dropFirst(scheme.utf8.count + 3))) }
        if let port = value("port"), !Self.isPortList(port) {
            throw MalformedConnectionString(reason: "a port that is not a number from 1 to 65535")
        }
    }

    /// The options of a libpq option array that have a value, in its order; frees the array.
    static func options(takingOwnershipOf array: UnsafeMutablePointer<PQconninfoOption>) -> [Option] {
        defer { PQconninfoFree(array) }
        var options: [Option] = []
        var entry = array
        while let keyword = entry.pointee.keyword {
            if let value = entry.pointee.val {
                let display = entry.pointee.dispchar.map { String(cString: $0) } ?? ""
                options.append(Option(keyword: String(cString: keyword), value: String(cString: value), isSecret: display == "*"))
            }
            entry += 1
        }
        return options
    }

    /// The value of the option `keyword`, if the string sets it.
    public func value(_ keyword: String) -> String? {
        options.first { $0.keyword == keyword }?.value
    }

    /// The values of the secret options, as libpq would send them.
    public var secrets: [String] {
        options.filter(\.isSecret).map(\.value)
    }

    /// The string as messages show it, on one line: written the same way (URI or key=value; a
    /// URI when a value holds a control character), rebuilt from the parsed options, every
    /// secret `***`. libpq reads it back to the same options.
    public var masked: String {
        switch form {
        case .uri(let scheme): return maskedURI(scheme: scheme)
        case .keywordValue:
            // A control character (a line break) can only be written as itself in key=value
            // form; a URI percent-encodes it, so the form stays on one line.
            let control = options.contains { $0.value.utf8.contains { $0 < 0x20 || $0 == 0x7F } }
            return control ? maskedURI(scheme: "postgresql") : maskedKeywordValue()
        }
    }

    /// `message` with every secret value replaced by `***`: for messages from libpq or the
    /// server about this connection. A secret that `masked` shows anyway (a password equal to
    /// the user name) is left alone, since masking it would tell what it is.
    public func maskingSecrets(in message: String) -> String {
        Self.masking(secrets, in: message, shown: masked)
    }

    /// `message` with every value of `secrets` that `shown` does not hold replaced by `***`.
    static func masking(_ secrets: [String], in message: String, shown masked: String) -> String {
        // Byte for byte: a secret that is a combining mark is inside a character of the text.
        let shown = Array(masked.utf8)
        let hidden = secrets.map { Array($0.utf8) }.filter { !$0.isEmpty && shown.firstRange(of: $0) == nil }
        var text = Array(message.utf8)
        // Until none is left: the mask beside what remains may make a secret again (`x**`). Each
        // pass leaves fewer bytes other than `*`, or (a secret of four `*` or more) fewer bytes,
        // so it ends. A match of whole UTF-8 text starts and ends between scalars.
        while let secret = hidden.first(where: { text.firstRange(of: $0) != nil }) {
            while let range = text.firstRange(of: secret) { text.replaceSubrange(range, with: Self.mask.utf8) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `scheme` when `text` begins with `scheme://` for `postgresql` or `postgres`, in any case
    /// (libpq itself reads only the lower-case scheme).
    public static func uriScheme(of text: String) -> String? {
        for scheme in ["postgresql", "postgres"] {
            let prefix = text.utf8.prefix(scheme.utf8.count + 3)
            if String(decoding: prefix, as: UTF8.self).lowercased() == scheme + "://" {
                return String(decoding: prefix.dropLast(3), as: UTF8.self)
            }
        }
        return nil
    }

    // MARK: - Refusals

    /// Refuses a URI whose user name or password libpq would read as something else: libpq
    /// ends the credentials at the first `@` (or sees none when a `/` comes first), so any
    /// other `@` before the query means an `@` or `/` in them was not percent-encoded.
    /// `rest` is the URI after `scheme://`.
    private static func checkAuthority(_ rest: [UInt8]) throws(MalformedConnectionString) {
        let at = UInt8(ascii: "@")
        let slash = UInt8(ascii: "/")
        let question = UInt8(ascii: "?")
        guard let end = rest.firstIndex(where: { $0 == at || $0 == slash }) else { return }
        if rest[end] == at {
            let after = rest[(end + 1)...]
            let query = after.firstIndex(of: question) ?? rest.endIndex
            if after[..<query].contains(at) {
                throw MalformedConnectionString(
                    reason: "an @ after the one that ends the user name and password (write an @ in a user name, password or database name as %40)")
            }
        } else {
            let query = rest.firstIndex(of: question) ?? rest.endIndex
            if end < query, rest[end..<query].contains(at) {
                throw MalformedConnectionString(
                    reason: "an @ after a / (write a / in a password as %2F, and an @ in a database name as %40)")
            }
        }
    }

    /// Whether `text` is a port list libpq accepts when it connects: comma-separated entries,
    /// each empty (the default port) or a number from 1 to 65535, spaces around it allowed.
    private static func isPortList(_ text: String) -> Bool {
        let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D]
        return text.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).allSatisfy { entry in
            var digits = Array(entry.drop(while: space.contains))
            while let last = digits.last, space.contains(last) { digits.removeLast() }
            if digits.isEmpty { return true }
            if digits.first == UInt8(ascii: "+") { digits.removeFirst() }
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
            let significant = digits.drop { $0 == 0x30 }
            guard significant.count <= 5, let number = Int(String(decoding: significant, as: UTF8.self)) else { return false }
            return (1...65535).contains(number)
        }
    }

    /// Words of the product's own for what libpq's parser refused. libpq's message quotes the
    /// string (and may be translated), so none of it is shown: its English beginning only
    /// picks the words.
    static func reason(forLibpqMessage message: String) -> String {
        let reasons: [(String, String)] = [
            ("invalid percent-encoded token", "a % that does not begin a percent-encoded byte (write a % itself as %25)"),
            ("forbidden value %00", "%00, a NUL byte, which no value may hold"),
            ("missing \"=\" after", "a word without = (in key=value form, a value with spaces goes in single quotes)"),
            ("unterminated quoted string", "a single quote that is not closed"),
            ("invalid connection option", "an option libpq does not know"),
            ("invalid URI query parameter", "a query parameter libpq does not know"),
            ("invalid URI query option", "a query parameter libpq does not know"),
            ("missing key/value separator", "a query parameter without ="),
            ("extra key/value separator", "a query parameter with more than one ="),
            ("end of string reached when looking for matching \"]\"", "an IPv6 host address without its closing ]"),
            ("IPv6 host address may not be empty", "an empty IPv6 host address"),
            ("unexpected character", "a character other than : or / after an IPv6 host address"),
            ("out of memory", "out of memory"),
        ]
        return reasons.first { message.hasPrefix($0.0) }?.1 ?? "libpq cannot read it"
    }

    // MARK: - The masked form

    private func maskedKeywordValue() -> String {
        let first = ["host", "hostaddr", "port", "user", "password", "dbname"]
        let ordered =
            first.compactMap { keyword in options.first { $0.keyword == keyword } }
            + options.filter { !first.contains($0.keyword) }
        return ordered.map { option in
            option.keyword + "=" + (option.isSecret ? Self.mask : Self.quotedValue(option.value))
        }.joined(separator: " ")
    }

    /// `value` as a key=value string writes it: in single quotes (with `\` before `'` and `\`)
    /// when it is empty or holds a space, a quote or a backslash.
    private static func quotedValue(_ value: String) -> String {
        let special: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, UInt8(ascii: "'"), UInt8(ascii: "\\")]
        guard value.isEmpty || value.utf8.contains(where: special.contains) else { return value }
        var quoted = "'"
        for character in value.unicodeScalars {
            if character == "'" || character == "\\" { quoted += "\\" }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "'"
    }

    private func maskedURI(scheme: String) -> String {
        // libpq skips an empty user name or database name in the URI's own parts: such a value
        // (set in the query) stays in the query.
        var text = scheme + "://"
        var used: Set<String> = []
        let user = value("user").flatMap { $0.isEmpty ? nil : $0 }
        let password = options.first { $0.keyword == "password" }
        if user != nil || password != nil {
            text += Self.percentEncoded(user ?? "", keeping: "") + (password != nil ? ":" + Self.mask : "") + "@"
            used.insert("password")
            if user != nil { used.insert("user") }
        }
        if let authority = Self.authority(host: value("host"), port: value("port")) {
            text += authority
            used.formUnion(["host", "port"])
        }
        // Always a /, so that an @ in the query is never taken for the end of credentials.
        text += "/"
        if let dbname = value("dbname"), !dbname.isEmpty {
            text += Self.percentEncoded(dbname, keeping: "")
            used.insert("dbname")
        }
        let query = options.filter { !used.contains($0.keyword) }.map { option in
            option.keyword + "=" + (option.isSecret ? Self.mask : Self.percentEncoded(option.value, keeping: "/:,"))
        }
        return query.isEmpty ? text : text + "?" + query.joined(separator: "&")
    }

    /// The hosts and ports as a URI's authority (`h1:5432,[::1]`), when they can be written
    /// there; `nil` when they go in the query instead.
    private static func authority(host: String?, port: String?) -> String? {
        guard let host else { return port == nil ? "" : nil }
        guard !host.isEmpty else { return nil }
        let hosts = host.split(separator: ",", omittingEmptySubsequences: false)
        let ports = port.map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        guard ports.isEmpty || ports.count == hosts.count else { return nil }
        // libpq reads hosts listed in a URI's authority with a port each (`h1,h2` gives port
        // `,`): hosts with a comma and no port (`%2C` in a host, or `host=a,b`) go in the query.
        guard hosts.count == 1 || port != nil else { return nil }
        var entries: [String] = []
        for (index, entry) in hosts.enumerated() {
            guard !entry.isEmpty else { return nil }
            let name: String
            if entry.utf8.allSatisfy(isHostByte) {
                name = String(entry)
            } else if entry.contains(":"), entry.utf8.allSatisfy(isIPv6Byte) {
                name = "[" + entry + "]"
            } else {
                return nil
            }
            let entryPort = index < ports.count ? ports[index] : ""
            guard entryPort.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            entries.append(entryPort.isEmpty ? name : name + ":" + entryPort)
        }
        return entries.joined(separator: ",")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) && byte != UInt8(ascii: "~")
    }

    private static func isIPv6Byte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
            || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    /// `value` with every byte outside RFC 3986's unreserved characters and `keeping` written
    /// `%XX`.
    private static func percentEncoded(_ value: String, keeping: String) -> String {
        let kept = Set(keeping.utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in value.utf8 {
            if isUnreserved(byte) || kept.contains(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A connection string that cannot be used: libpq cannot read it, it is ambiguous (an
/// unencoded `@` or `/` in a user name or password, a port that is not a number), or libpq
/// refuses one of its values before trying a host (`sslmode=bogus`). No secret of the string is
/// in it: the reason names at most the refused value, as libpq does, with every secret masked.
public struct MalformedConnectionString: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, and how to write it instead where that is clear.
    public var reason: String

    /// Creates an error.
    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { "malformed connection string: \(reason)" }
}

/// `text` as messages may show it: `ConnectionString.masked` when libpq can read it, else a
/// placeholder that shows nothing of it but its scheme (and whether libpq found it malformed,
/// or could not be loaded to read it).
public func maskedConnectionString(_ text: String) -> String {
    let note: String
    do {
        return try ConnectionString(parsing: text).masked
    } catch is MalformedConnectionString {
        note = "malformed, not shown"
    } catch {
        note = "not shown"
    }
    if let scheme = ConnectionString.uriScheme(of: text) { return scheme.lowercased() + "://… (\(note))" }
    return "a connection string (\(note))"
}
