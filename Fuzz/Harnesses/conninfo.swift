import CPostgres
import Foundation
import RepositoryPostgres

@testable import Postgres
@testable import Repository

// Connection strings: what messages show of one never holds a password libpq would read from it.
//
// The input is a connection string, with every byte 0x01 replaced by a planted password
// (`plant`) so that the fuzzer can put one anywhere. libpq's own parser (`PQconninfoParse`,
// called here directly) says which options the string sets and which are secret. Then:
// - a string libpq cannot read, or that sectionctl refuses, is shown as a placeholder only;
// - a string it reads is shown so that libpq reads the shown form back to the same options,
//   every secret `***`;
// - the plant appears in what is shown only inside the value of an option libpq does not hold
//   secret (there libpq does not use it as a password);
// - a secret libpq parsed appears in what is shown only where a non-secret value or the
//   shown form's own words hold it (checked exactly for secrets of lower-case letters, which
//   no percent-encoding or mask can make);
// - a message that echoes the string, masked, holds no secret the shown form does not;
// - the library's errors about the server show the shown form, and mask the echoed string.
#if canImport(Glibc)
    import Glibc
#endif

/// A password the harness plants where the input has a byte 0x01: only unreserved URI
/// characters, so that no encoding changes it.
private let plant = "Pw7qPLANTz"

/// What libpq's parser makes of `text`: each option set, its value, and whether it is secret;
/// `nil` when libpq cannot read it.
private func libpqOptions(_ text: String) -> [(keyword: String, value: String, secret: Bool)]? {
    try! LibPQ.load()  // loaded as `ConnectionString` loads it; the harness needs libpq installed
    var message: UnsafeMutablePointer<CChar>?
    guard let options = PQconninfoParse(text, &message) else {
        if let message { PQfreemem(message) }
        return nil
    }
    defer { PQconninfoFree(options) }
    var found: [(keyword: String, value: String, secret: Bool)] = []
    var entry = options
    while let keyword = entry.pointee.keyword {
        if let value = entry.pointee.val {
            let secret = entry.pointee.dispchar.map { String(cString: $0) == "*" } ?? false
            found.append((String(cString: keyword), String(cString: value), secret))
        }
        entry += 1
    }
    return found
}

private func contains(_ text: String, _ part: String) -> Bool {
    part.isEmpty || Array(text.utf8).firstRange(of: Array(part.utf8)) != nil
}

private func isPlaceholder(_ shown: String) -> Bool {
    ["postgresql://… (malformed, not shown)", "postgres://… (malformed, not shown)", "a connection string (malformed, not shown)"]
        .contains(shown)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConnectionStrings(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes: [UInt8] = []
    for byte in UnsafeBufferPointer(start: data, count: size) {
        if byte == 0x01 { bytes += Array(plant.utf8) } else { bytes.append(byte) }
    }
    let text = String(decoding: bytes, as: UTF8.self)
    let shown = maskedConnectionString(text)
    require(!shown.contains("\n"), "a shown form of more than one line: \(shown)")

    if case .server = StoreLocation(text) {
        // As a store opened with the PostgreSQL backend shows it (`SectionStore.path`), and as
        // `sectionctl` does.
        require(ServerSupport.postgres.describe(StoreLocation(text)) == shown, "the location shows another form than maskedConnectionString")
        require(!StoreLocation(text).description.contains(plant), "a location without server support shows the planted password")
    }
    let location = StoreLocation.server(connectionString: text)

    let parsed: ConnectionString
    do {
        parsed = try ConnectionString(parsing: text)
    } catch let error as MalformedConnectionString {
        // Refused before anything is sent: no message of libpq's or the server's can follow.
        require(isPlaceholder(shown), "a refused string shown as \(shown)")
        let message = "\(SectionStore.repositoryError(error, location: location))"
        require(!contains(message, plant) && !contains(error.reason, plant), "the refusal quotes the string: \(message)")
        return 0
    } catch {
        fail("libpq could not be loaded: \(error)")
    }
    guard let options = libpqOptions(text) else { fail("sectionctl accepts what libpq cannot read") }
    require(
        options.map { "\($0.keyword)=\($0.value)" } == parsed.options.map { "\($0.keyword)=\($0.value)" },
        "sectionctl's options differ from libpq's")
    let secrets = options.filter(\.secret).map(\.value)
    let values = options.filter { !$0.secret }.map(\.value)

    // The shown form reads back to the same options, secrets masked.
    guard let again = libpqOptions(shown) else { fail("libpq cannot read the shown form \(shown)") }
    require(
        again.filter { !$0.secret }.map { "\($0.keyword)=\($0.value)" } == options.filter { !$0.secret }.map { "\($0.keyword)=\($0.value)" },
        "the shown form \(shown) reads back to other options")
    require(again.filter(\.secret).map(\.keyword) == options.filter(\.secret).map(\.keyword), "the shown form's secrets differ")
    require(again.filter(\.secret).allSatisfy { $0.value == ConnectionString.mask }, "a secret not masked in \(shown)")

    // The plant only where libpq does not take it for a password.
    if contains(shown, plant) {
        require(values.contains { contains($0, plant) }, "the planted password is shown: \(shown)")
    }
    // A secret libpq parsed, made of lower-case letters, only where a non-secret value or the
    // form's own words (keywords, the scheme) hold it.
    let words = options.map(\.keyword) + ["postgresql", "postgres"]
    for secret in secrets where secret.utf8.count >= 3 && secret.utf8.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) {
        if values.contains(where: { contains($0, secret) }) || words.contains(where: { contains($0, secret) }) { continue }
        require(!contains(shown, secret), "the password \(secret) is shown: \(shown)")
    }
    // A message echoing the string, masked: no secret the shown form does not show anyway.
    let masked = parsed.maskingSecrets(in: "could not connect: " + text)
    for secret in secrets where !contains(shown, secret) {
        require(!contains(masked, secret), "a message shows the password \(secret): \(masked)")
    }
    // The library's errors about this server, from messages that echo the string: each shows
    // the server as shown, and the echo masked (the check above), never as typed.
    let echoes = [
        PostgresError(sqlState: "28P01", message: text, context: "c", stage: .connecting),
        PostgresError(sqlState: nil, message: "could not connect: " + text, context: "c", stage: .connecting),
        PostgresError(sqlState: "08006", message: text, context: "COMMIT", stage: .commitInDoubt),
    ]
    for error in echoes {
        let message = "\(SectionStore.repositoryError(error, location: location))"
        require(shown.isEmpty || contains(message, shown), "an error that does not name the server as shown: \(message)")
        require(contains(message, parsed.maskingSecrets(in: error.message)), "an error that does not mask the echo: \(message)")
        if secrets.contains(where: { !$0.isEmpty && !contains(shown, $0) && contains(error.message, $0) }) {
            require(!contains(message, error.message), "an error that echoes the string as typed: \(message)")
        }
    }
    return 0
}
