// swift-tools-version:6.0
import PackageDescription

// The benchmark, a package of its own so that building and testing the product does not compile
// it: `swift run -c release --package-path Benchmarks sectionctl-bench` (docs/benchmarks.md).
let package = Package(
    name: "sectionctl-benchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        // The product, from this checkout (named, so that the products below are found whatever
        // the checkout's directory is called).
        .package(name: "sectionctl", path: "..")
    ],
    targets: [
        // The system SQLite, for the baseline (module names are unique across the package graph:
        // the product's own is CSQLite).
        .systemLibrary(
            name: "CSQLiteBaseline",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // A C program's worth of direct SQLite calls: the benchmark's baseline.
        .target(name: "CBaseline", dependencies: ["CSQLiteBaseline"]),
        .executableTarget(
            name: "sectionctl-bench",
            dependencies: [
                "CBaseline",
                .product(name: "Repository", package: "sectionctl"),
                .product(name: "RepositoryPostgres", package: "sectionctl"),
                .product(name: "Postgres", package: "sectionctl"),
                .product(name: "PostgresCluster", package: "sectionctl"),
                // The sync service and its HTTP server, served in-process for the replica scenario.
                .product(name: "SyncService", package: "sectionctl"),
                .product(name: "HTTPServer", package: "sectionctl"),
                // Built beside the benchmark, which runs it as a whole process.
                .product(name: "sectionctl", package: "sectionctl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
