import CommandLineSupport
import Foundation
import Repository

/// `clone`, `status` and `sync`: a replica, a file that mirrors a server's list, edited offline
/// and synced through the server (docs/replicas.md).
enum ReplicaCommands {
    struct CloneArguments: CommandArguments {
        static let server = ArgumentSpec("ADDRESS", help: "the list's address on a sync service: https://HOST[:PORT]/lists/NAME")
        static let file = ArgumentSpec("FILE", help: "the replica file to make (it must not exist)", completion: .files)
        static let tokenFile = OptionSpec(
            "--token-file", valueName: "F", help: "a file whose first line is the list's token (- for standard input)", completion: .files)
        static let plainHTTP = OptionSpec(
            "--allow-plain-http", help: "take an http:// address of another machine (the token then crosses the network in the clear)")
        var server: String
        var file: String
        var tokenFile: String
        var plainHTTP: Bool
        init(from line: ParsedLine) throws(CLIError) {
            server = try line.word(Self.server)
            file = try line.word(Self.file)
            guard let tokenFile = line.value(Self.tokenFile) else {
                throw CLIError.usage("clone needs the list's token: --token-file F (a file whose first line is the token)", command: ["clone"])
            }
            self.tokenFile = tokenFile
            plainHTTP = line.has(Self.plainHTTP)
        }
    }

    static let clone = Command<Context>(
        CommandSpec(
            name: "clone", summary: "make a replica: a file that mirrors a list of a sync service, to edit offline and sync",
            arguments: [CloneArguments.server, CloneArguments.file],
            options: [CloneArguments.tokenFile, CloneArguments.plainHTTP],
            examples: [
                "clone https://lists.example.com/lists/groceries ./groceries.db --token-file ~/groceries.token",
                "--db ./groceries.db sync",
            ],
            discussion: """
                Copies the list at ADDRESS (served by sectionctl serve) into a new file, with its ids, and
                takes the ids the service gives this replica for rows and sections added offline. Every
                command works on the file, offline, and the mirrored list is its default list; what is done
                to it there is kept as intents, which sync pushes. The token is kept beside the file, in
                FILE.token (readable by you alone), never in the file. Plain http:// is taken for this
                machine only, unless --allow-plain-http.
                """),
        reading: CloneArguments.self
    ) { arguments, context in
        let token = try readToken(from: arguments.tokenFile)
        let status: ReplicaStatus
        do {
            try DatabaseLocation.createParentDirectories(of: arguments.file)
            status = try SectionStore.clone(from: arguments.server, token: token, to: arguments.file, allowPlainHTTP: arguments.plainHTTP)
        } catch let error as RepositoryError {
            throw CLIError.from(error, databaseOption: nil)
        }
        if context.json {
            context.printJSON(json(status, database: arguments.file))
        } else {
            context.console.writeLine(
                "Cloned list \(named(status.serverList)) at version \(status.serverVersion) into \(TextEscaping.escaped(arguments.file)); "
                    + "work on it with: sectionctl --db \(ShellWords.quote(arguments.file)) …, and sync it with: sectionctl --db \(ShellWords.quote(arguments.file)) sync"
            )
        }
    }

    /// The token in the first line of `path` (`-`: standard input), trimmed.
    static func readToken(from path: String) throws(CLIError) -> String {
        let text: String
        if path == "-" {
            text = readLine(strippingNewline: true) ?? ""
        } else {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError(
                    "cannot read the token file \(TextEscaping.escaped(path))", hint: "give a file whose first line is the token", exitCode: .noInput)
            }
            text = String(decoding: data, as: UTF8.self)
        }
        let token = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else {
            throw CLIError("the token file \(TextEscaping.escaped(path)) is empty", hint: "its first line must be the token", exitCode: .dataError)
        }
        return token
    }

    static let status = Command<Context>(
        CommandSpec(
            name: "status", summary: "say what a replica mirrors, how far it has synced, and what it has not pushed",
            examples: ["--db ./groceries.db status", "--db ./groceries.db --json status"],
            discussion: """
                Reads the replica file only (no server is asked): its server and list, the server version
                it last pulled, how many intents wait to be pushed, how many ids it has left for rows and
                sections added offline.
                """),
        run: { context in
            let store = try context.openStore()
            let status = try store.replicaStatus()
            if context.json {
                context.printJSON(json(status, database: store.path))
                return
            }
            context.console.writeLine(
                "replica of list \(named(status.serverList)) on \(TextEscaping.escaped(status.server)), here list \(named(status.list))")
            context.console.writeLine("token kept in: \(TextEscaping.escaped(status.tokenFile))")
            context.console.writeLine("server version pulled: \(status.serverVersion)")
            context.console.writeLine("intents not yet pushed: \(status.pendingIntents)")
            context.console.writeLine("ids left offline: \(status.rowIDsLeft) for rows, \(status.sectionIDsLeft) for sections")
            if let diverged = status.divergedVersion {
                context.console.writeLine(
                    "the list here differed from the server's at version \(diverged) (by their digests), and was read whole then")
            }
        })

    struct SyncArguments: CommandArguments {
        static let watch = OptionSpec("--watch", help: "keep syncing, each time the list changes here or on the server, until interrupted")
        var watch: Bool
        init(from line: ParsedLine) throws(CLIError) {
            watch = line.has(Self.watch)
        }
    }

    static let sync = Command<Context>(
        CommandSpec(
            name: "sync", summary: "push a replica's changes to its server and pull the server's",
            options: [SyncArguments.watch],
            examples: ["--db ./groceries.db sync", "--db ./groceries.db --json sync", "--db ./groceries.db sync --watch"],
            discussion: """
                Sends the changes made on the replica and pulls what others changed, in one request: the
                service applies the changes itself, by the rebase rules (a row goes next to the nearest
                neighbour you saw that is still in its section; a change to something deleted is dropped and
                said), and takes each once even when an answer is lost and sync is run again. Prints each
                change that did not land as made. Exit 75 when the service cannot be reached or stays
                silent: nothing is lost, run sync again. With --watch, syncs again whenever the list changes
                here or on the service (it follows the service's stream of the list's versions), printing
                each sync that did anything (and each failure once, on standard error), until Ctrl-C or
                SIGTERM, which end it with exit 0.
                """),
        reading: SyncArguments.self
    ) { arguments, context in
        let store = try context.openStore()
        if arguments.watch { return try watch(store, context: context) }
        let report: SyncReport
        do {
            report = try store.sync()
        } catch let error as RepositoryError {
            throw CLIError.from(error, databaseOption: context.options.databasePath)
        }
        print(report, context: context)
    }

    /// What one sync did, as lines (or one JSON object).
    static func print(_ report: SyncReport, context: Context) {
        if context.json {
            context.printJSON(json(report))
            return
        }
        for pushed in report.pushed {
            guard let outcome = pushed.outcome, outcome != .applied else { continue }
            context.console.writeLine("\(TextEscaping.escaped(pushed.intent.description)): \(TextEscaping.escaped(outcome.description))")
        }
        let pushed = report.pushed.count
        var sentence = pushed == 0 ? "Nothing to push" : "Pushed \(plural(pushed, "intent"))"
        sentence += "; the server's list is at version \(report.serverVersion)"
        sentence +=
            report.change.committed ? "; list \(named(report.change.list)) is at version \(report.change.version)." : "; nothing changed here."
        if report.diverged { sentence += " The list here differed from the server's, so it was read whole." }
        if report.stillPending > 0 { sentence += " \(plural(report.stillPending, "intent")) recorded meanwhile wait for the next sync." }
        context.console.writeLine(sentence)
    }

    /// `sync --watch`: syncs until a signal ends it, printing each sync that pushed or changed
    /// anything, and each new failure once.
    static func watch(_ store: SectionStore, context: Context) throws {
        _ = try store.replicaStatus()  // refuse a file that is no replica before anything is printed
        if !context.json {
            context.console.writeLine("Syncing \(TextEscaping.escaped(store.path)) whenever the list changes here or on the server; Ctrl-C ends.")
            context.console.flush()
        }
        let printer = SyncPrinter(context: context)
        try UntilInterrupted.run {
            try await store.syncContinuously { printer.take($0) }
        }
    }

    /// Prints what `sync --watch` reports: the syncs that did anything, and each failure once
    /// (until a sync succeeds again). Called by one task at a time (`syncContinuously` reports in
    /// turn), which is what makes it safe to share.
    private final class SyncPrinter: @unchecked Sendable {
        private let context: Context
        private var lastFailure: String?

        init(context: Context) {
            self.context = context
        }

        func take(_ result: Result<SyncReport, any Error>) {
            switch result {
            case .success(let report):
                lastFailure = nil
                guard !report.pushed.isEmpty || report.change.committed else { return }
                ReplicaCommands.print(report, context: context)
                context.console.flush()
            case .failure(let error):
                let message = (error as? RepositoryError)?.description ?? "\(error)"
                guard message != lastFailure else { return }
                lastFailure = message
                context.console.writeErrorLine("sectionctl: sync failed: \(TextEscaping.escaped(message)); trying again on the next change")
            }
        }
    }

    private static func named(_ name: String) -> String { "\"\(TextEscaping.escaped(name))\"" }

    static func json(_ status: ReplicaStatus, database: String) -> JSONValue {
        .object([
            ("database", .string(database)), ("server", .string(status.server)), ("token_file", .string(status.tokenFile)),
            ("server_list", .string(status.serverList)),
            ("list", .string(status.list)), ("replica_id", .string(status.replicaID)), ("server_version", .int(status.serverVersion)),
            ("pending", .int(status.pendingIntents)), ("row_ids_left", .int(status.rowIDsLeft)),
            ("section_ids_left", .int(status.sectionIDsLeft)),
            ("verified_version", status.verifiedVersion.map { .int($0) } ?? .null),
            ("diverged_version", status.divergedVersion.map { .int($0) } ?? .null),
        ])
    }

    static func json(_ report: SyncReport) -> JSONValue {
        .object([
            (
                "pushed",
                .array(
                    report.pushed.map { pushed in
                        .object([
                            ("sequence", .int(pushed.sequence)), ("intent", .verbatim(pushed.intent.json)),
                            ("outcome", .string(pushed.outcome?.description ?? "applied by an earlier push")),
                        ])
                    })
            ),
            ("server_version", .int(report.serverVersion)), ("previous_server_version", .int(report.previousServerVersion)),
            ("change", JSONShapes.change(report.change)), ("still_pending", .int(report.stillPending)), ("diverged", .bool(report.diverged)),
        ])
    }
}
