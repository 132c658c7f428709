import Foundation
import Repository
import TestSupport
import Testing

@testable import SyncService

/// `Tokens`: made once and shown once, kept as a selector and a hash, checked from a request's
/// `Authorization` header, revoked and expired; on a file and on a server alike.
@Suite("Tokens")
struct TokenTests {
    /// A moment with whole seconds, as the table keeps times.
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: Backend.all) func aTokenMadeForAListIsAcceptedWithItsRecord(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.createList(named: "groceries")
        let tokens = Tokens(store: fixture.store)
        let issued = try tokens.create(list: "groceries", role: .edit, expiresAfter: nil, now: Self.start)

        #expect(issued.record.list == "groceries" && issued.record.role == .edit)
        #expect(issued.record.createdAt == Self.start && issued.record.expiresAt == nil && issued.record.revokedAt == nil)
        #expect(issued.token.wholeMatch(of: /sct_[0-9a-f]{16}_[A-Za-z0-9_-]{43}/) != nil)
        #expect(issued.token.hasPrefix("sct_\(issued.record.selector)_"))
        #expect(try tokens.check(authorization: "Bearer \(issued.token)", now: Self.start) == .valid(issued.record))
        #expect(try tokens.check(authorization: "bearer  \(issued.token)", now: Self.start) == .valid(issued.record), "the scheme in any case")
        #expect(try tokens.all() == [issued.record])
    }

    @Test(arguments: Backend.all) func aRequestWithoutTheRightTokenIsRefusedAndSaysWhy(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let tokens = Tokens(store: fixture.store)
        let issued = try tokens.create(list: "default", role: .read, expiresAfter: nil)
        let selector = issued.record.selector
        let otherSecret = Tokens.base64URL([UInt8](repeating: 7, count: 32))

        #expect(try tokens.check(authorization: nil) == .missing)
        #expect(try tokens.check(authorization: "") == .missing)
        #expect(try tokens.check(authorization: "  ") == .missing)
        #expect(try tokens.check(authorization: "sct_\(selector)_\(otherSecret)") == .malformed, "no scheme")
        #expect(try tokens.check(authorization: "Basic dXNlcjpwYXNz") == .malformed)
        #expect(try tokens.check(authorization: "Basic \(issued.token)") == .malformed)
        #expect(try tokens.check(authorization: "Bearer") == .malformed)
        #expect(try tokens.check(authorization: "Bearer \(issued.token) extra") == .malformed)
        #expect(try tokens.check(authorization: "Bearer \(issued.token.dropLast())") == .malformed, "a secret one character short")
        #expect(try tokens.check(authorization: "Bearer \(issued.token)A") == .malformed)
        #expect(try tokens.check(authorization: "Bearer \(issued.token.uppercased())") == .malformed)
        #expect(try tokens.check(authorization: "Bearer sct_\(selector)_\(otherSecret)!") == .malformed)
        #expect(try tokens.check(authorization: "Bearer sct_0123456789abcdef_\(otherSecret)") == .unknown)
        #expect(try tokens.check(authorization: "Bearer sct_\(selector)_\(otherSecret)") == .wrongSecret)
        #expect(try tokens.check(authorization: "Bearer \(issued.token)") == .valid(issued.record))
    }

    @Test(arguments: Backend.all) func aTokenExpiresAtItsTimeAndARevokedOneIsRefused(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let tokens = Tokens(store: fixture.store)
        let expiring = try tokens.create(list: "default", role: .admin, expiresAfter: .seconds(3600), now: Self.start)
        #expect(expiring.record.expiresAt == Self.start.addingTimeInterval(3600))
        let header = "Bearer \(expiring.token)"
        #expect(try tokens.check(authorization: header, now: Self.start.addingTimeInterval(3599)) == .valid(expiring.record))
        #expect(try tokens.check(authorization: header, now: Self.start.addingTimeInterval(3600)) == .expired)
        #expect(expiring.record.state(at: Self.start.addingTimeInterval(3600)) == .expired)
        #expect(throws: TokenError.expiryTooShort) { try tokens.create(list: "default", role: .read, expiresAfter: .zero) }
        // A fraction of a second past a whole one counts as the next.
        let rounded = try tokens.create(list: "default", role: .read, expiresAfter: .milliseconds(1500), now: Self.start)
        #expect(rounded.record.expiresAt == Self.start.addingTimeInterval(2))

        let kept = try tokens.create(list: "default", role: .edit, expiresAfter: nil, now: Self.start)
        let revokeTime = Self.start.addingTimeInterval(60)
        let revoked = try tokens.revoke(kept.record.selector, now: revokeTime)
        #expect(revoked.id == kept.record.id && revoked.revokedAt == revokeTime && revoked.state(at: revokeTime) == .revoked)
        #expect(try tokens.check(authorization: "Bearer \(kept.token)", now: revokeTime) == .revoked)
        // Revoking again keeps the first time; by id as by selector.
        #expect(try tokens.revoke(String(kept.record.id), now: revokeTime.addingTimeInterval(60)).revokedAt == revokeTime)
        #expect(try tokens.revoke(String(expiring.record.id), now: revokeTime).revokedAt == revokeTime)

        // Every token stays listed, by id, whatever its state.
        let all = try tokens.all()
        #expect(all.map(\.id) == [expiring.record.id, rounded.record.id, kept.record.id])
        #expect(all.map { $0.state(at: revokeTime) } == [.revoked, .expired, .revoked])
    }

    @Test(arguments: Backend.all) func revokingWhatIsNoTokenSaysSoAndChangesNothing(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let tokens = Tokens(store: fixture.store)
        let issued = try tokens.create(list: "default", role: .read, expiresAfter: nil)
        for name in ["0123456789abcdef", "999", "nonsense", "", "ABCDEF0123456789"] {
            #expect(throws: TokenError.self) { try tokens.revoke(name) }
        }
        // A whole token given by mistake is not repeated in the message.
        do {
            _ = try tokens.revoke(issued.token)
            Issue.record("a token's text revoked something")
        } catch let error as TokenError {
            #expect(!error.description.contains(issued.token) && !error.description.contains(issued.record.selector))
        }
        #expect(try tokens.all() == [issued.record])
    }

    @Test(arguments: Backend.all) func aTokenNeedsItsListAndGoesWithIt(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let tokens = Tokens(store: fixture.store)
        #expect {
            try tokens.create(list: "nowhere", role: .read, expiresAfter: nil)
        } throws: { error in
            if case .listNotFound("nowhere", _) = error as? RepositoryError { return true }
            return false
        }
        #expect(try tokens.all().isEmpty)

        try fixture.store.createList(named: "work")
        let work = try tokens.create(list: "work", role: .edit, expiresAfter: nil)
        let kept = try tokens.create(list: "default", role: .edit, expiresAfter: nil)
        try fixture.store.deleteList("work", force: true)
        #expect(try tokens.check(authorization: "Bearer \(work.token)") == .unknown)
        #expect(try tokens.all() == [kept.record])
    }

    @Test(arguments: Backend.all) func theStoreKeepsAHashPerTokenAndNeverTheSecret(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let tokens = Tokens(store: fixture.store)
        let issued = try (0..<3).map { _ in try tokens.create(list: "default", role: .read, expiresAfter: nil) }
        let hashes = try fixture.store.read { db in try db.query("SELECT secret_hash FROM tokens ORDER BY id") { $0.bytes(0) } }
        #expect(hashes.count == 3 && Set(hashes).count == 3 && hashes.allSatisfy { $0.count == 32 })
        #expect(Set(issued.map(\.record.selector)).count == 3)

        for token in issued {
            let secretText = String(token.token.dropFirst("sct_".count + 16 + "_".count))
            let secret = try #require(Tokens.bytes(base64URL: secretText))
            #expect(hashes.contains(Crypto.sha256(secret)))
            // Neither the token's text, nor its secret in any form, is in what the file holds.
            guard backend == .sqlite else { continue }
            let raw = [fixture.path, fixture.path + "-wal"].compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
            #expect(!raw.isEmpty)
            for needle in [Data(token.token.utf8), Data(secretText.utf8), Data(secret)] {
                #expect(raw.range(of: needle) == nil)
            }
        }
    }

    @Test func rolesAreOrderedAndEachAllowsWhatTheOnesBelowDo() {
        #expect(TokenRole.allCases.sorted() == [.read, .edit, .admin])
        #expect(TokenRole.admin.allows(.edit) && TokenRole.edit.allows(.read) && TokenRole.read.allows(.read))
        #expect(!TokenRole.read.allows(.edit) && !TokenRole.edit.allows(.admin))
    }

    @Test func anIssuedTokenDescribesItselfWithoutItsText() throws {
        let fixture = try StoreFixture(.sqlite)
        let issued = try Tokens(store: fixture.store).create(list: "default", role: .read, expiresAfter: nil)
        var dumped = ""
        dump(issued, to: &dumped)
        for shown in [String(describing: issued), String(reflecting: issued), "\(issued)", dumped] {
            #expect(!shown.contains(issued.token) && !shown.contains(issued.token.suffix(43)))
            #expect(shown.contains(issued.record.selector))
        }
    }

    @Test func hashesAndComparisonsAreLibcryptos() {
        // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
        #expect(Tokens.hex(Crypto.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Crypto.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!Crypto.constantTimeEqual([1, 2, 3], [1, 2, 4]) && !Crypto.constantTimeEqual([1, 2], [1, 2, 3]))
        #expect(Tokens.bytes(base64URL: Tokens.base64URL([0xfb, 0xff, 0xfe])) == [0xfb, 0xff, 0xfe])
        #expect(Tokens.base64URL([0xfb, 0xff, 0xfe]) == "-__-")
    }
}
