import CommandLineSupport
import Foundation
import HTTPServer
import Repository
import SyncService

/// `serve`: the sync service over the database (docs/sync-protocol.md), until interrupted.
enum ServeCommand {
    struct Arguments: CommandArguments {
        static let listen = OptionSpec(
            "--listen", valueName: "HOST:PORT", help: "where to listen (default: 127.0.0.1:8080; port 0 takes any free port)")
        static let certificate = OptionSpec(
            "--tls-cert", valueName: "FILE", help: "serve HTTPS with this certificate (PEM), with --tls-key", completion: .files)
        static let key = OptionSpec("--tls-key", valueName: "FILE", help: "the certificate's private key (PEM)", completion: .files)
        static let assets = OptionSpec(
            "--assets", valueName: "DIR",
            help: "where the page finds SortableJS (Sortable.min.js; default: \(PageAssets.systemDirectory), Debian's libjs-sortable)",
            completion: .files)
        static let plainHTTP = OptionSpec(
            "--allow-plain-http", help: "serve plain HTTP on an address other than loopback (tokens then cross the network in the clear)")

        var host: String
        var port: UInt16
        var tls: TLSFiles?
        var plainHTTP: Bool
        var assets: String?

        init(from line: ParsedLine) throws(CLIError) {
            (host, port) = try Self.address(line.value(Self.listen) ?? "127.0.0.1:8080")
            switch (line.value(Self.certificate), line.value(Self.key)) {
            case (let certificate?, let key?): tls = TLSFiles(certificate: certificate, key: key)
            case (nil, nil): tls = nil
            default: throw CLIError.usage("--tls-cert and --tls-key go together", command: ["serve"])
            }
            plainHTTP = line.has(Self.plainHTTP)
            assets = line.value(Self.assets)
            if tls == nil && !plainHTTP && !SyncEndpoint.isLoopbackHost(host) {
                throw CLIError.usage(
                    "plain HTTP on \(host) would let tokens cross the network in the clear: give --tls-cert and --tls-key, or --allow-plain-http",
                    command: ["serve"])
            }
        }

        /// `HOST:PORT` (`[V6]:PORT` for an IPv6 address) read.
        static func address(_ text: String) throws(CLIError) -> (String, UInt16) {
            guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
                throw CLIError.usage("--listen takes HOST:PORT (like 127.0.0.1:8080), not \(TextEscaping.excerpt(text))", command: ["serve"])
            }
            let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            guard !host.isEmpty else {
                throw CLIError.usage("--listen takes HOST:PORT (like 127.0.0.1:8080), not \(TextEscaping.excerpt(text))", command: ["serve"])
            }
            return (host, port)
        }
    }

    static let command = Command<Context>(
        CommandSpec(
            name: "serve", summary: "serve the database's lists over HTTP to replicas, with tokens scoped to a list",
            options: [Arguments.listen, Arguments.certificate, Arguments.key, Arguments.assets, Arguments.plainHTTP],
            examples: [
                "--db tasks.db serve",
                "--db tasks.db serve --listen 0.0.0.0:8443 --tls-cert cert.pem --tls-key key.pem",
                "--db tasks.db token create --list groceries --role edit",
            ],
            discussion: """
                Serves the sync service (docs/sync-protocol.md): replicas clone a list from
                https://HOST:PORT/lists/NAME and sync with it, presenting a token of that list (sectionctl
                token create). A browser opens the same address for the list's page (docs/browser.md),
                asking for the token once. The server applies what replicas send by its own rules. On a PostgreSQL
                database, several serve processes can share the lists. Listens on loopback by default; plain
                HTTP elsewhere needs --allow-plain-http. Logs one line per request on standard error (no
                token ever). Ctrl-C or SIGTERM ends it with exit 0.
                """),
        reading: Arguments.self
    ) { arguments, context in
        let store = try context.openStore()
        let assets = PageAssets(directory: arguments.assets ?? PageAssets.systemDirectory)
        if let directory = arguments.assets, assets.sortable == nil {
            throw CLIError("cannot serve: no Sortable.min.js or Sortable.js in \(TextEscaping.escaped(directory))")
        }
        let service = SyncService(store: store, assets: assets)
        let server: HTTPServer
        do {
            server = try HTTPServer(host: arguments.host, port: arguments.port, tls: arguments.tls, limits: service.limits.http) { request in
                let response = service.respond(to: request)
                FileHandle.standardError.write(Data("\(request.method) \(SyncService.shown(request.path)) \(response.status)\n".utf8))
                return response
            }
        } catch let error as HTTPServerError {
            throw CLIError("cannot serve: \(error.description)")
        }
        defer { server.stop() }
        let scheme = arguments.tls == nil ? "http" : "https"
        let host = arguments.host.contains(":") ? "[\(arguments.host)]" : arguments.host
        let address = "\(scheme)://\(host):\(server.port)"
        if context.json {
            context.printJSON(.object([("listening", .string(address)), ("database", .string(store.path))]))
        } else {
            context.console.writeLine("Serving \(TextEscaping.escaped(store.path)) at \(address)/lists/NAME; Ctrl-C ends.")
        }
        context.console.flush()
        try UntilInterrupted.run {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3_600)) }
        }
    }
}
