import Foundation
import Repository
import RepositoryPostgres
import SyncService
import TestSupport
import Testing

/// `sectionctl token create`, `ls` and `revoke`, run as a user would: the token printed once and
/// accepted by the service's check, never printed again, refused once revoked; bad input refused
/// with one line and nothing written.
@Suite("Tokens from the command line")
struct TokenCommandTests {
    /// The tokens of the database `cli` works on, as the sync service reads them.
    func tokens(_ cli: Sectionctl) throws -> Tokens {
        Tokens(store: try SectionStore(location: StoreLocation(cli.databasePath), server: .postgres))
    }

    @Test(arguments: Backend.all) func aTokenIsPrintedOnceAcceptedListedWithoutItsSecretAndRevoked(backend: Backend) throws {
        let cli = try Sectionctl(backend)
        try cli.initialize()
        try cli.ok(["list", "add", "groceries"])

        // The global --list names the list, wherever it is on the line.
        let created = try cli.run(["token", "create", "--list", "groceries", "--role", "edit"])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.lines.count == 1)
        let token = try #require(created.lines.first)
        #expect(token.wholeMatch(of: /sct_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/) != nil, "\(token)")
        #expect(created.stderr.contains("shown only this once"), "\(created.stderr)")
        #expect(created.stderr.contains("list \"groceries\", role edit, never expires"), "\(created.stderr)")
        #expect(!created.stderr.contains(token))

        let check = try tokens(cli).check(authorization: "Bearer \(token)")
        guard case .valid(let record) = check else {
            Issue.record("the token printed is refused: \(check)")
            return
        }
        #expect(record.list == "groceries" && record.role == .edit && record.expiresAt == nil)

        let json = try cli.run(["--json", "--list", "groceries", "token", "create", "--role", "read", "--expires", "12h"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try json.json()
        let second = try #require(object["token"] as? String)
        #expect(object["id"] as? Int == 2 && object["list"] as? String == "groceries" && object["role"] as? String == "read")
        let expiresAt = try #require(object["expires_at"] as? String)
        let expiry = try Date(expiresAt, strategy: .iso8601)
        #expect(abs(expiry.timeIntervalSinceNow - 12 * 3600) < 3600, "\(expiresAt)")
        #expect(try tokens(cli).check(authorization: "Bearer \(second)") != .malformed)

        // Listed, by id, with no secret in any form.
        let listed = try cli.run(["token", "ls"])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.lines.count == 3, "\(listed.stdout)")
        #expect(listed.lines.first?.split(separator: " ") == ["ID", "SELECTOR", "LIST", "ROLE", "CREATED", "EXPIRES", "STATE"])
        #expect(listed.lines[1].hasSuffix("never                 active"), "\(listed.stdout)")
        #expect(listed.lines[1].contains(record.selector) && listed.lines[2].hasSuffix("active"))
        let listedJSON = try cli.run(["--json", "token", "ls"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(listedJSON.stdout.utf8)) as? [[String: Any]])
        #expect(array.map { $0["id"] as? Int } == [1, 2])
        #expect(array.map { $0["state"] as? String } == ["active", "active"])
        #expect(array[0]["expires_at"] is NSNull && array[0]["revoked_at"] is NSNull)
        for output in [listed.stdout, listed.stderr, listedJSON.stdout, listedJSON.stderr] {
            for secret in [token, second] {
                #expect(!output.contains(secret.suffix(43)), "a secret in \(output)")
            }
        }

        // Revoked by selector: refused from then on, still listed.
        let revoked = try cli.run(["token", "revoke", record.selector])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        #expect(revoked.stdout == "Revoked token #1 (\(record.selector)) for list \"groceries\", role edit.\n")
        #expect(try tokens(cli).check(authorization: "Bearer \(token)") == .revoked)
        let again = try cli.run(["token", "revoke", "1"])
        #expect(again.status == 0 && again.stdout.hasPrefix("Nothing changed: token #1"), "\(again.stdout)")
        let revokedJSON = try cli.run(["--json", "token", "revoke", "2"]).json()
        #expect(revokedJSON["state"] as? String == "revoked" && revokedJSON["revoked_at"] is String)
        #expect(try cli.run(["token", "ls"]).lines.dropFirst().allSatisfy { $0.hasSuffix("revoked") })
    }

    @Test func badInputIsRefusedWithOneLineAndNothingWritten() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let refusals: [(arguments: [String], status: Int32, message: String)] = [
            (["token", "create", "--role", "owner"], 2, #"--role is read, edit or admin, not "owner""#),
            (["token", "create"], 2, "--role is needed: read, edit or admin"),
            (
                ["token", "create", "--role", "read", "--expires", "30"], 2,
                #"--expires is a whole number and a unit, s, m, h, d or w (30m, 12h, 30d), not "30""#
            ),
            (
                ["token", "create", "--role", "read", "--expires", "0d"], 2,
                #"--expires is a whole number and a unit, s, m, h, d or w (30m, 12h, 30d), not "0d""#
            ),
            (
                ["token", "create", "--role", "read", "--expires", "-3h"], 2,
                #"--expires is a whole number and a unit, s, m, h, d or w (30m, 12h, 30d), not "-3h""#
            ),
            (
                ["token", "create", "--role", "read", "--expires", "1y"], 2,
                #"--expires is a whole number and a unit, s, m, h, d or w (30m, 12h, 30d), not "1y""#
            ),
            (["token", "create", "--role", "read", "--expires", "36501d"], 2, #"--expires is at most 100 years (36500d), not "36501d""#),
            (
                ["token", "create", "--role", "read", "--expires", "99999999999999999999w"], 2,
                #"--expires is a whole number and a unit, s, m, h, d or w (30m, 12h, 30d), not "99999999999999999999w""#
            ),
            (["token", "create", "--role", "read", "--list", "nowhere"], 1, #"no list named "nowhere" (lists: "default")"#),
            (["token", "revoke", "7"], 1, #"no token has the id or selector "7""#),
            (["token", "revoke", "0123456789abcdef"], 1, #"no token has the id or selector "0123456789abcdef""#),
            (["token"], 2, "missing a token command (commands: create, ls, revoke)"),
        ]
        for refusal in refusals {
            let result = try cli.run(refusal.arguments)
            #expect(result.status == refusal.status, "\(refusal.arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(refusal.arguments)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.first == "sectionctl: error: \(refusal.message)"[...], "\(refusal.arguments): \(result.stderr)")
            // A usage error adds the hint to the command's help, and nothing else.
            #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("hint: see 'sectionctl token") }, "\(result.stderr)")
            #expect(lines.count == (refusal.status == 2 ? 2 : 1), "\(result.stderr)")
        }
        #expect(try cli.run(["token", "ls"]).lines.count == 1, "only the header: no token was made")
    }

    @Test func revokingAWholeTokenByMistakeDoesNotRepeatIt() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let token = try #require(try cli.run(["token", "create", "--role", "admin"]).lines.first)
        let result = try cli.run(["token", "revoke", token])
        #expect(result.status == 1)
        #expect(!result.stderr.contains(token.suffix(43)) && !result.stdout.contains(token.suffix(43)), "\(result.stderr)")
        #expect(try tokens(cli).check(authorization: "Bearer \(token)") != .revoked)
    }
}
