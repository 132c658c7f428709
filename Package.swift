// swift-tools-version:6.0
import PackageDescription

#if canImport(Glibc)
    import Glibc

    /// Whether the C library the command is built against loads packed relative relocations
    /// (DT_RELR): glibc 2.36 and later. An older loader would ignore them and run the program with
    /// its pointers unrelocated, so elsewhere the command is linked as before.
    let loaderTakesPackedRelocations: Bool = {
        var text = [CChar](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &text, text.count) > 0 else { return false }
        // "glibc 2.36"
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        let version = String(decoding: bytes, as: UTF8.self).split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
        return version.count >= 2 && (version[0], version[1]) >= (2, 36)
    }()
#else
    let loaderTakesPackedRelocations = false
#endif

/// How the `sectionctl` command is linked on Linux.
///
/// It links the Swift runtime and Foundation statically: resolving their symbols at every start
/// was most of a short command's time (a static binary starts in about a third of it). It then
/// needs libc, libstdc++, SQLite, libmicrohttpd and libcrypto at start; libcurl (which URLSession
/// runs on) when a replica syncs, through the `CCurl` loader; and libpq when a server is named.
/// Apple platforms ship the runtime in the system, so there it is linked as usual.
///
/// Where glibc is 2.36 or later it is linked by lld with packed relative relocations (DT_RELR):
/// the static runtime's 75,000 pointers to relocate then take 14 KB of table, not 1.8 MB that
/// every start reads (1.7 MiB of a `--version`'s memory).
let staticallyLinkedCommand: [LinkerSetting] = {
    let foundation = [
        "_FoundationICU", "CoreFoundation", "Foundation", "FoundationEssentials", "FoundationInternationalization", "_FoundationCShims",
        "_FoundationCollections", "FoundationNetworking", "_CFURLSessionInterface",
    ]
    let packedRelocations = loaderTakesPackedRelocations ? ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] : []
    // The Foundation archives refer to each other: one group lets the linker resolve them in any order.
    let group = ["-Xlinker", "--start-group"] + foundation.flatMap { ["-Xlinker", "-l\($0)"] } + ["-Xlinker", "--end-group"]
    // URLSession (a replica's sync) runs on libcurl, which `CCurl` loads when first called.
    return [.unsafeFlags(["-static-stdlib"] + packedRelocations + group, .when(platforms: [.linux]))]
}()

let package = Package(
    name: "sectionctl",
    // The floor is where the standard library's Mutex and Atomic (Synchronization) begin: macOS 15,
    // iOS 18 and their siblings (Linux has them with the toolchain). We keep them rather than a
    // lock of our own: they are checked by the compiler under strict concurrency, and every
    // shared state in the library is one of them. iOS 18 was the current release two years ago;
    // the README's "Platforms" says so, and what going lower would take.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        // What an app links: SQLite files only, so that nothing in its closure needs libpq
        // (the iOS SDK has none).
        .library(name: "Repository", targets: ["Repository", "Transfer"]),
        // Lists on a PostgreSQL server, through libpq: an app adds it and
        // opens server stores with `server: .postgres`; the command line always does.
        .library(name: "RepositoryPostgres", targets: ["RepositoryPostgres"]),
        .executable(name: "sectionctl", targets: ["sectionctl"]),
        // For the benchmark package (Benchmarks/), which measures against raw libpq on a
        // throwaway server: the thin libpq layer, and the cluster the tests start too.
        .library(name: "Postgres", targets: ["Postgres"]),
        .library(name: "PostgresCluster", targets: ["PostgresCluster"]),
        // The sync service (`sectionctl serve`): tokens, over libcrypto. Server-only: it must
        // never enter Repository's closure.
        .library(name: "SyncService", targets: ["SyncService"]),
        // The HTTP server under `sectionctl serve`, over libmicrohttpd.
        .library(name: "HTTPServer", targets: ["HTTPServer"]),
    ],
    targets: [
        // The system SQLite, reached through a module map and a small C shim.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // OpenSSL's libcrypto (random bytes, SHA-256, constant-time comparison), for the sync
        // service's tokens; never a dependency of Repository.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // A thin, typed layer over the SQLite C API: connections, statements, transactions.
        .target(name: "SQLite", dependencies: ["CSQLite"]),
        // libpq, for lists shared on a PostgreSQL server: loaded (dlopen) the first time a
        // server is named, not linked, so that a process that opens only files starts without it
        // and the ~20 libraries it needs. Its declarations are libpq's stable ABI, kept in the
        // target's header and checked against the system's <libpq-fe.h> by `.ci/libpq-abi`.
        .target(name: "CPostgres", dependencies: ["CLibraryLoader"]),
        // What the loaders of libraries opened on first use (libpq, libcurl) share: which file
        // to open, and the one line that says why none would.
        .target(name: "CLibraryLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // A thin layer over libpq: connections, parameterised statements, transactions,
        // notifications.
        .target(name: "Postgres", dependencies: ["CPostgres"]),
        // A throwaway PostgreSQL cluster (initdb, pg_ctl, a Unix socket only) for the tests and
        // the benchmark.
        .target(name: "PostgresCluster", dependencies: ["Postgres"]),
        // The system's libmicrohttpd (with GnuTLS), reached through a module map and a small C
        // shim for its variadic calls.
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        // A small, safe HTTP/1.1 server over libmicrohttpd: whole requests to one synchronous
        // handler on a thread pool, limits, TLS, and event streams that wait without a thread.
        // It knows nothing of lists: `sectionctl serve` puts its routes on it.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD"]),
        // Turns Migrations/*.sql into Swift source at build time, so binaries are self-contained.
        .executableTarget(name: "migration-embedder"),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["migration-embedder"]
        ),
        // Turns Page/ (the browser page: HTML, CSS, JavaScript modules) into Swift source at
        // build time, so that `sectionctl serve` carries its page.
        .executableTarget(name: "page-embedder"),
        .plugin(
            name: "EmbedPage",
            capability: .buildTool(),
            dependencies: ["page-embedder"]
        ),
        // The domain: lists of ordered sections of ordered rows, moves, sessions, changesets.
        // Its dependency closure is SQLite alone: CI reads `swift package describe` to keep it
        // so (`.ci/portable closure`), and builds an app's package with libpq hidden.
        .target(
            name: "Repository",
            dependencies: ["SQLite"],
            plugins: ["EmbedMigrations"]
        ),
        // The PostgreSQL side of the storage seam: `ServerSupport.postgres`, which opens server
        // locations for the stores it is passed to.
        .target(name: "RepositoryPostgres", dependencies: ["Repository", "Postgres"]),
        // Import and export: the JSON scanner, the native format, records and templates.
        .target(name: "Transfer", dependencies: ["Repository"]),
        // The sync service behind `sectionctl serve`: its tokens (hashed with libcrypto), for one
        // list and one role each, and the page it serves to browsers (Page/, embedded).
        .target(name: "SyncService", dependencies: ["Repository", "HTTPServer", "CCrypto"], plugins: ["EmbedPage"]),
        // Command-line machinery that knows nothing of lists: the parser of a command tree, help
        // pages, manual pages, shell words, display width, escaping for a terminal, colours, the
        // console, status lines.
        .target(name: "CommandLineSupport"),
        // The command-line interface, as a library so that its pieces can be unit-tested.
        .target(
            name: "SectionCLI", dependencies: ["CommandLineSupport", "Repository", "RepositoryPostgres", "Transfer", "HTTPServer", "SyncService"]),
        // libcurl for the command's static Foundation: the functions URLSession calls, defined
        // under libcurl's names, open the system's libcurl (dlopen) on the first call, so that a
        // command that does not sync starts without it and the ~30 libraries it needs. Only the
        // command links it; its declarations are libcurl.so.4's stable ABI.
        .target(name: "CCurl", dependencies: ["CLibraryLoader"]),
        // The command links the Swift runtime statically on Linux (`staticallyLinkedCommand`).
        .executableTarget(
            name: "sectionctl", dependencies: ["SectionCLI", .target(name: "CCurl", condition: .when(platforms: [.linux]))],
            linkerSettings: staticallyLinkedCommand),
        // What the test targets share: temporary directories, fresh databases, seeded randomness,
        // random edits, the changeset checks and a fake table view (Tests/TestSupport's folders).
        .target(
            name: "TestSupport",
            dependencies: ["Repository", "RepositoryPostgres", "SQLite", "Postgres", "PostgresCluster", "HTTPServer", "SyncService"],
            path: "Tests/TestSupport"),
        .testTarget(name: "SQLiteTests", dependencies: ["SQLite", "TestSupport"]),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "PostgresCluster", "TestSupport"]),
        .testTarget(name: "RepositoryTests", dependencies: ["Repository", "RepositoryPostgres", "SQLite", "SyncService", "TestSupport"]),
        .testTarget(name: "TransferTests", dependencies: ["Transfer", "Repository", "SQLite", "TestSupport"]),
        .testTarget(
            name: "SyncServiceTests",
            dependencies: ["SyncService", "HTTPServer", "Repository", "Transfer", "RepositoryPostgres", "PostgresCluster", "TestSupport"]),
        .testTarget(name: "CommandLineSupportTests", dependencies: ["CommandLineSupport", "TestSupport"]),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "TestSupport"]),
        .testTarget(
            name: "SectionCLITests",
            dependencies: [
                "SectionCLI", "CommandLineSupport", "Repository", "RepositoryPostgres", "SyncService", "SQLite", "PostgresCluster", "TestSupport",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
