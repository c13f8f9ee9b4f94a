// swift-tools-version:6.0
// records-bench: durable inserts per second through GroupCommitter, SQLite and PostgreSQL.
// Its own package (the Records sources are linked in) so it builds in release mode without the server.
import PackageDescription

let package = Package(
    name: "records-bench",
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .target(name: "Records", dependencies: ["CSQLite", "CPostgres"]),
        .executableTarget(name: "RecordsBench", dependencies: ["Records"]),
    ],
    swiftLanguageModes: [.v6]
)
