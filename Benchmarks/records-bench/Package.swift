// swift-tools-version:6.0
// records-bench: durable inserts per second through GroupCommitter, SQLite and PostgreSQL; and
// IntentsBench: intents committed through IntentWriter.submit (writer cost, RSS, prefilling a file).
// Its own package (the Records sources are linked in) so it builds in release mode without the server.
import PackageDescription

let package = Package(
    name: "records-bench",
    targets: [
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CPostgres", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "CPostgresLoader", dependencies: ["CPostgres"], linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "CLinux"),
        .target(name: "System", dependencies: ["CLinux"]),
        .target(name: "Crypto", dependencies: ["COpenSSL"]),
        .target(name: "Records", dependencies: ["CSQLite", "CPostgres", "CPostgresLoader", "Crypto", "System"]),
        .executableTarget(name: "RecordsBench", dependencies: ["Records"]),
        .executableTarget(name: "IntentsBench", dependencies: ["Records"]),
    ],
    swiftLanguageModes: [.v6]
)
