import Foundation
import TestSupport
import Testing

@testable import Postgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What messages show of a connection string: rebuilt from what libpq parses, never a password
/// however it is written; what libpq cannot read (or would read other than it was meant) is
/// refused without quoting it.
@Suite struct ConnectionStringTests {
    /// Strings with a password written the ways that leaked, and more of each kind; the second
    /// value is the password as the person who typed it meant it.
    static let leaks: [(text: String, password: String)] = [
        // An unencoded @ in the user name: libpq ends the user name at the first @.
        ("postgresql://ada@host2:Secret@host/db", "Secret"),
        ("postgresql://ada@example.com:Secret@db.example.com:5432/lists", "Secret"),
        ("postgres://a@b@c:Secret@host/db", "Secret"),
        // An unencoded @ or / in the password.
        ("postgresql://ada:Sec@ret@host/db", "Sec@ret"),
        ("postgresql://ada:Sec/ret@host/db", "Sec/ret"),
        ("postgresql://ada:1234/5678@host/db", "1234/5678"),
        ("postgresql://ada:p/a/s/s@/db?host=/run/pg", "p/a/s/s"),
        // A % that is not valid percent-encoding, or a NUL.
        ("postgresql://ada:50%off@host/db", "50%off"),
        ("postgresql://ada:100%@host/db", "100%"),
        ("postgresql://ada:Se%zzcret@host/db", "Se%zzcret"),
        ("postgresql://host/db?password=50%off", "50%off"),
        ("postgresql://ada:Se%00cret@host/db", "Se%00cret"),
        // A percent-encoded key naming the password.
        ("postgresql://host/db?pass%77ord=Secret", "Secret"),
        ("postgresql://host/db?%70%61%73%73%77%6F%72%64=Secret", "Secret"),
        ("postgresql://host/db?sslpass%77ord=Secret", "Secret"),
        ("postgresql://ada:Other@host/db?pass%77ord=Secret", "Secret"),
        // key=value strings, well and badly formed.
        ("host=x password=Secret dbname=y", "Secret"),
        ("host=x password = Secret dbname=y", "Secret"),
        ("  password='Sec ret' host=x", "Sec ret"),
        ("host=x password=Sec\\ ret", "Sec ret"),
        ("host=x password='Sec", "Sec"),
        ("host=x password=Sec ret", "Sec ret"),
        ("host=x passwd=Secret", "Secret"),
        ("host=x sslpassword=Secret", "Secret"),
        // A scheme libpq does not read (it reads only lower case).
        ("POSTGRESQL://ada:Secret@host/db", "Secret"),
        // A password that spills into the port.
        ("postgresql://ada:Secret@host:Secret/db", "Secret"),
    ]

    @Test(arguments: leaks)
    func noWayOfWritingAPasswordShowsIt(_ text: String, _ password: String) {
        let shown = maskedConnectionString(text)
        #expect(!shown.contains(password), "\(text) → \(shown)")
        // Not a piece of it either, where the whole string is refused.
        let parsed = try? ConnectionString(parsing: text)
        if parsed == nil {
            #expect(shown.hasSuffix("(malformed, not shown)"), "\(text) → \(shown)")
            for piece in password.split(whereSeparator: { "@/%: ".contains($0) }) where piece.count >= 3 {
                #expect(!shown.contains(piece), "\(text) → \(shown)")
            }
        }
        do {
            _ = try ConnectionString(parsing: text)
        } catch let error as MalformedConnectionString {
            #expect(!error.reason.contains(password) && !error.description.contains(password), "\(error)")
        } catch {
            Issue.record("not a malformed string: \(error)")
        }
    }

    @Test func aStringLibpqCannotReadIsRefusedWithAReasonThatQuotesNothing() {
        let refused: [(String, String)] = [
            ("postgresql://ada:50%off@host/db", "a % that does not begin a percent-encoded byte (write a % itself as %25)"),
            ("postgresql://ada:Se%00cret@host/db", "%00, a NUL byte, which no value may hold"),
            (
                "postgresql://ada@host2:Secret@host/db",
                "an @ after the one that ends the user name and password (write an @ in a user name, password or database name as %40)"
            ),
            ("postgresql://ada:Sec/ret@host/db", "an @ after a / (write a / in a password as %2F, and an @ in a database name as %40)"),
            ("postgresql://host/db?secret=1", "a query parameter libpq does not know"),
            ("postgresql://host/db?sslmode", "a query parameter without ="),
            ("postgresql://host:80x/db", "a port that is not a number from 1 to 65535"),
            ("postgresql://host:0/db", "a port that is not a number from 1 to 65535"),
            ("postgresql://host:65536/db", "a port that is not a number from 1 to 65535"),
            ("postgresql://[::1/db", "an IPv6 host address without its closing ]"),
            ("POSTGRES://host/db", "libpq reads the scheme in lower case only: write postgres://"),
            ("host=x password='Sec", "a single quote that is not closed"),
            ("host=x password=Sec ret", "a word without = (in key=value form, a value with spaces goes in single quotes)"),
            ("host=x passwd=Secret", "an option libpq does not know"),
            ("host=x\u{0}password=Secret", "it holds a NUL character"),
        ]
        for (text, reason) in refused {
            #expect(throws: MalformedConnectionString(reason: reason), "\(text)") { try ConnectionString(parsing: text) }
        }
        #expect(ConnectionString.reason(forLibpqMessage: "ein übersetzter Fehler: »Secret«") == "libpq cannot read it")
    }

    @Test func whatLibpqAcceptsIsRebuiltFromItsOptionsAndReadsBackTheSame() throws {
        let examples: [(String, String)] = [
            ("postgresql://ada:s3cret@db.example/lists", "postgresql://ada:***@db.example/lists"),
            (
                "postgres://db.example:5433/lists?sslmode=require&application_name=team%20board",
                "postgres://db.example:5433/lists?application_name=team%20board&sslmode=require"
            ),
            ("postgresql://ada%40example.com:p%40ss%2Fw%25rd@db/lists", "postgresql://ada%40example.com:***@db/lists"),
            ("postgresql://h1:5432,h2:5433/lists", "postgresql://h1:5432,h2:5433/lists"),
            ("postgresql://h1,h2/lists", "postgresql://h1,h2/lists"),
            // A comma decoded from a host has no port for each host: it stays in the query.
            ("postgresql://2%2client/lists", "postgresql:///lists?host=2,lient"),
            ("postgresql://[::1]:5432/lists?ssl=true", "postgresql://[::1]:5432/lists?sslmode=require"),
            ("postgresql:///lists?host=/run/postgresql&user=ada", "postgresql://ada@/lists?host=/run/postgresql"),
            ("postgresql://db/lists?host=&user=", "postgresql:///lists?user=&host="),
            ("postgresql://", "postgresql:///"),
            ("host=db user=ada password=s3cret dbname=lists", "host=db user=ada password=*** dbname=lists"),
            ("dbname='my lists' options='-c search_path=x' host=/run/pg", "host=/run/pg dbname='my lists' options='-c search_path=x'"),
            ("host=db application_name='it\\'s' password=''", "host=db password=*** application_name='it\\'s'"),
            // A line break can only be written as itself in key=value form: shown as a URI.
            ("host=h dbname='my\nlists' password=pw", "postgresql://:***@h/my%0Alists"),
            ("", ""),
        ]
        for (text, expected) in examples {
            let parsed = try ConnectionString(parsing: text)
            #expect(parsed.masked == expected, "\(text)")
            // libpq reads the masked form back to the same options, secrets aside.
            let again = try ConnectionString(parsing: parsed.masked)
            #expect(again.options.filter { !$0.isSecret } == parsed.options.filter { !$0.isSecret }, "\(text) → \(parsed.masked)")
            #expect(again.options.filter(\.isSecret).map(\.keyword) == parsed.options.filter(\.isSecret).map(\.keyword))
            #expect(again.secrets.allSatisfy { $0 == ConnectionString.mask })
        }
    }

    @Test func aPasswordInAMessageIsMaskedUnlessTheMaskedFormShowsItAnyway() throws {
        let parsed = try ConnectionString(parsing: "postgresql://ada:Secret@db/lists")
        #expect(parsed.maskingSecrets(in: "FATAL: no Secret here; Secret") == "FATAL: no *** here; ***")
        // A password equal to the user name: masking the name would tell the password.
        let same = try ConnectionString(parsing: "postgresql://adalovelace:adalovelace@db/lists")
        #expect(
            same.maskingSecrets(in: "password authentication failed for user \"adalovelace\"")
                == "password authentication failed for user \"adalovelace\"")
        // The mask beside what is left never makes the password again.
        let stars = try ConnectionString(parsing: "password=x** host=db")
        #expect(!stars.maskingSecrets(in: "xx** and x**").contains("x**"))
    }

    @Test func theSQLStateOfARefusedConnectionIsReadFromLibpqsVerboseMessage() {
        let verbose = """
            connection to server on socket "/tmp/pg/.s.PGSQL.5432" failed: FATAL:  28P01: password authentication failed for user "ada"
            LOCATION:  auth_failed, auth.c:334

            """
        let (state, message) = PostgresConnection.connectionFailure(verbose)
        #expect(state == "28P01")
        #expect(message == "connection to server on socket \"/tmp/pg/.s.PGSQL.5432\" failed: FATAL:  password authentication failed for user \"ada\"")
        let unreachable = PostgresConnection.connectionFailure(
            "connection to server on socket \"/x/.s.PGSQL.5432\" failed: No such file or directory\n\tIs the server running locally?\n")
        #expect(unreachable.sqlState == nil)
        #expect(
            unreachable.message
                == "connection to server on socket \"/x/.s.PGSQL.5432\" failed: No such file or directory Is the server running locally?")
        #expect(PostgresConnection.connectionFailure("fe_sendauth: no password supplied\n").sqlState == nil)
    }

    @Test func aMalformedStringIsRefusedBeforeAnythingIsSent() {
        #expect(throws: MalformedConnectionString.self) {
            _ = try PostgresConnection(connectionString: "postgresql://ada@host2:Secret@127.0.0.1:1/db")
        }
    }
}

/// Connecting, without a server of the tests' own: libpq's connect loop as `PQconnectdb` runs it.
@Suite struct PostgresConnectTests {
    @Test func aServerThatNeverAnswersIsGivenUpAfterConnectTimeout() throws {
        // A Unix socket that listens and never accepts: the kernel takes the connection, and
        // nothing ever answers libpq's startup message.
        let directory = try TemporaryDirectory()
        let path = directory.path(".s.PGSQL.5432")
        #if canImport(Glibc)
            let stream = Int32(SOCK_STREAM.rawValue)
        #else
            let stream = SOCK_STREAM
        #endif
        let listener = socket(AF_UNIX, stream, 0)
        #expect(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(listener, 4) == 0)
        #expect {
            _ = try PostgresConnection(connectionString: "host=\(directory.url.path) user=ada password=s3cret connect_timeout=2")
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.stage == .connecting && error.isConnectionFailure && error.message == "timeout expired"
                && !error.description.contains("s3cret")
        }
        #expect(throws: MalformedConnectionString(reason: "connect_timeout (or PGCONNECT_TIMEOUT) is not a whole number of seconds")) {
            _ = try PostgresConnection(connectionString: "host=\(directory.url.path) connect_timeout=soon")
        }
    }
}
