import CommandLineSupport
import Foundation
import Repository
import SyncService

/// `token create | ls | revoke`: the tokens that let a client of `sectionctl serve` reach one
/// list with one role (docs/sync-protocol.md). A token is shown once, when it is made; the
/// database keeps only its selector and a hash of its secret.
enum TokenCommands {
    static let command = Command<Context>(
        CommandSpec(
            name: "token", summary: "make, list and revoke the tokens that let clients of the sync service in",
            examples: ["--list groceries token create --role edit --expires 30d", "token ls", "token revoke 3"]),
        subcommands: [create, list, revoke])

    // MARK: - token create

    /// `token create --role ROLE [--expires DURATION]`, for the list `--list` names.
    struct CreateArguments: CommandArguments {
        static let role = OptionSpec(
            "--role", valueName: "ROLE", help: "what it allows: read (pull and watch), edit (also push), admin (also replicas)",
            completion: .choices(TokenRole.allCases.map(\.rawValue)))
        static let expires = OptionSpec(
            "--expires", valueName: "DURATION", help: "refuse it after this long: a number and s, m, h, d or w (30m, 12h, 30d); default: never")

        var role: TokenRole
        var expiresAfter: Duration?

        init(from line: ParsedLine) throws(CLIError) {
            guard let role = try line.read(Self.role, TokenCommands.role) else {
                throw line.usage("\(Self.role.name) is needed: read, edit or admin")
            }
            self.role = role
            expiresAfter = try line.read(Self.expires, TokenCommands.duration)
        }
    }

    static let create = Command<Context>(
        CommandSpec(
            name: "create", summary: "make a token for the list --list names, and print it once",
            options: [CreateArguments.role, CreateArguments.expires],
            examples: [
                "--list groceries token create --role edit", "--list groceries token create --role read --expires 12h",
                "--json --list groceries token create --role admin --expires 30d",
            ],
            discussion: """
                Makes a random token for the list --list names (default: default) and prints it alone on
                standard output, this once: the database keeps only its selector (the 16 hex digits after
                sct_) and a hash of its secret, so it cannot be shown again. A client sends it as
                Authorization: Bearer TOKEN. Keep it in a file only its owner can read.
                """),
        reading: CreateArguments.self
    ) { arguments, context in
        let issued = try Tokens(store: try context.openStore()).create(
            list: context.listName, role: arguments.role, expiresAfter: arguments.expiresAfter)
        let record = issued.record
        if context.json {
            context.printJSON(
                .object([
                    ("token", .string(issued.token)), ("id", .int(record.id)), ("selector", .string(record.selector)),
                    ("list", .string(record.list)), ("role", .string(record.role.rawValue)), ("expires_at", .string(record.expiresAt.map(iso8601))),
                ]))
        } else {
            context.console.writeLine(issued.token)
            let expiry = record.expiresAt.map { "expires \(iso8601($0))" } ?? "never expires"
            context.console.writeErrorLine(
                "Token #\(record.id) (\(record.selector)) for list \(named(record.list)), role \(record.role.rawValue), \(expiry). "
                    + "It is shown only this once: keep it now.")
        }
    }

    // MARK: - token ls

    static let list = Command<Context>(
        CommandSpec(
            name: "ls", summary: "every token, revoked and expired ones too, without its secret",
            examples: ["token ls", "--json token ls"],
            discussion: """
                One line a token, by id: its selector, list, role, when it was made and expires (UTC), and
                whether it is active, revoked or expired. No secret is printed: none is kept.
                """),
        run: { context in
            let tokens = try Tokens(store: try context.openStore()).all()
            let now = Date()
            if context.json {
                context.printJSON(.array(tokens.map { json($0, now: now) }))
            } else {
                printTable(tokens, now: now, context: context)
            }
        })

    // MARK: - token revoke

    /// `token revoke SELECTOR|ID`.
    struct RevokeArguments: CommandArguments {
        static let token = ArgumentSpec("TOKEN", help: "the token's id or selector (see token ls)")
        var token: String

        init(from line: ParsedLine) throws(CLIError) {
            token = try line.word(Self.token)
        }
    }

    static let revoke = Command<Context>(
        CommandSpec(
            name: "revoke", summary: "refuse a token from now on",
            arguments: [RevokeArguments.token],
            examples: ["token revoke 3", "token revoke 9f86d081884c7d65"],
            discussion: """
                Revokes the token with this id or selector: every request that carries it is refused (401)
                from then on. Its row stays, for token ls; a token revoked already stays as it was.
                """),
        reading: RevokeArguments.self
    ) { arguments, context in
        let tokens = Tokens(store: try context.openStore())
        let before = try tokens.all()
        let record: TokenRecord
        do {
            record = try tokens.revoke(arguments.token)
        } catch let error as TokenError {
            throw CLIError(error.description)
        }
        let already = before.first { $0.id == record.id }?.revokedAt != nil
        if context.json {
            context.printJSON(json(record, now: Date()))
        } else {
            let what = "token #\(record.id) (\(record.selector)) for list \(named(record.list)), role \(record.role.rawValue)"
            context.console.writeLine(
                already ? "Nothing changed: \(what) was revoked already, at \(iso8601(record.revokedAt!))." : "Revoked \(what).")
        }
    }

    // MARK: - Reading and showing

    /// A role's name, or a usage error naming the roles there are.
    static func role(_ text: String) throws(CLIError) -> TokenRole {
        guard let role = TokenRole(rawValue: text) else {
            throw CLIError("\(CreateArguments.role.name) is read, edit or admin, not \"\(text)\"", exitCode: .usage)
        }
        return role
    }

    /// The longest expiry `--expires` takes: 100 years.
    static let longestExpiry: Int64 = 100 * 365 * 86_400

    /// A duration written as a whole number and a unit: `90s`, `30m`, `12h`, `30d`, `2w`; from a
    /// second up to 100 years. Otherwise a usage error saying how it is written.
    static func duration(_ text: String) throws(CLIError) -> Duration {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        let wrong = CLIError(
            "\(CreateArguments.expires.name) is a whole number and a unit, s, m, h, d or w (30m, 12h, 30d), not \"\(text)\"",
            exitCode: .usage)
        guard let unit = text.last.flatMap({ units[$0] }), text.dropLast().allSatisfy(\.isASCII),
            let count = Int64(text.dropLast()), count > 0
        else { throw wrong }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: unit)
        guard !overflow, seconds <= longestExpiry else {
            throw CLIError("\(CreateArguments.expires.name) is at most 100 years (36500d), not \"\(text)\"", exitCode: .usage)
        }
        return .seconds(seconds)
    }

    /// A token's record as JSON: never its secret, which is not kept.
    static func json(_ record: TokenRecord, now: Date) -> JSONValue {
        .object([
            ("id", .int(record.id)), ("selector", .string(record.selector)), ("list", .string(record.list)),
            ("role", .string(record.role.rawValue)), ("created_at", .string(iso8601(record.createdAt))),
            ("expires_at", .string(record.expiresAt.map(iso8601))), ("revoked_at", .string(record.revokedAt.map(iso8601))),
            ("state", .string(record.state(at: now).rawValue)),
        ])
    }

    /// Id, selector, list, role, created, expires and state, in aligned columns.
    private static func printTable(_ tokens: [TokenRecord], now: Date, context: Context) {
        let header = ["ID", "SELECTOR", "LIST", "ROLE", "CREATED", "EXPIRES", "STATE"]
        let rows = tokens.map { token in
            [
                "\(token.id)", token.selector, TextEscaping.escaped(token.list), token.role.rawValue, iso8601(token.createdAt),
                token.expiresAt.map(iso8601) ?? "never", token.state(at: now).rawValue,
            ]
        }
        let widths = header.indices.map { column in ([header] + rows).map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            // The id right-aligned, the rest left-aligned; no padding after the last column.
            var text = String(repeating: " ", count: widths[0] - DisplayWidth.of(cells[0])) + cells[0]
            for column in 1..<cells.count {
                text += "  " + (column == cells.count - 1 ? cells[column] : DisplayWidth.padded(cells[column], to: widths[column]))
            }
            return text
        }
        context.console.writeLine(context.style.bold(line(header)))
        for row in rows { context.console.writeLine(line(row)) }
    }

    /// `date` in UTC, to the second: `2026-12-06T23:20:00Z`.
    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601)
    }

    private static func named(_ name: String) -> String { "\"\(TextEscaping.escaped(name))\"" }
}
