import Foundation
import RecordsTestSupport
import Testing

@testable import Records

/// The stores the conformance suite runs on.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// `pgbouncer` is PostgreSQL through PgBouncer in transaction mode (`scripts/start-pgbouncer.sh`), the
    /// store sending unnamed statements (`records.postgresStatements=unnamed`).
    case inMemory, sqlite, postgres, pgbouncer

    /// The name shown in test results.
    var testDescription: String { rawValue }

    /// Every kind, less PostgreSQL when PRESIGN_SKIP_POSTGRES=1. Without that variable and without
    /// PRESIGN_TEST_POSTGRES_URL, the PostgreSQL cases run and fail with a message saying what to do.
    /// PRESIGN_SKIP_PGBOUNCER=1 leaves the PgBouncer cases out alone (they fail without
    /// PRESIGN_TEST_PGBOUNCER_URL, with a message saying how to start it).
    static var kinds: [StoreKind] {
        let environment = ProcessInfo.processInfo.environment
        if environment["PRESIGN_SKIP_POSTGRES"] == "1" { return [.inMemory, .sqlite] }
        return environment["PRESIGN_SKIP_PGBOUNCER"] == "1" ? allCases.filter { $0 != .pgbouncer } : allCases
    }

    /// The database kinds (no in-memory store), with the same PostgreSQL rule.
    static var databases: [StoreKind] { kinds.filter { $0 != .inMemory } }
}

/// Why a PostgreSQL test could not run.
struct MissingPostgres: Error, CustomStringConvertible {
    /// What to do about it.
    var description: String {
        "PRESIGN_TEST_POSTGRES_URL is not set: start a server with `eval \"$(bash scripts/start-postgres.sh)\"`, "
            + "or set PRESIGN_SKIP_POSTGRES=1 to leave the PostgreSQL tests out"
    }
}

/// Why a PgBouncer test could not run.
struct MissingPgBouncer: Error, CustomStringConvertible {
    /// What to do about it.
    var description: String {
        "PRESIGN_TEST_PGBOUNCER_URL is not set: start one with `eval \"$(bash scripts/start-pgbouncer.sh)\"` "
            + "after start-postgres.sh, or set PRESIGN_SKIP_PGBOUNCER=1 to leave the PgBouncer tests out"
    }
}

/// A store made for one test, with its own file (SQLite) or schema (PostgreSQL), removed by `close()`
/// (call it in a `defer`, which also keeps the object alive to the end of the test).
final class TestStore: @unchecked Sendable {
    /// The store under test.
    let store: any RecordStore
    /// Opens another store object on the same data (the same object for the in-memory store).
    let reopen: () throws -> any RecordStore
    /// Removes the file or schema.
    private let cleanup: () -> Void

    /// Wraps a store, how to reopen it, and how to remove its data.
    init(store: any RecordStore, reopen: @escaping () throws -> any RecordStore, cleanup: @escaping () -> Void) {
        self.store = store
        self.reopen = reopen
        self.cleanup = cleanup
    }

    /// Removes the file or schema.
    func close() { cleanup() }

    /// A fresh, migrated store of `kind`.
    static func make(_ kind: StoreKind, migrate: Bool = true) throws -> TestStore {
        let made: TestStore
        switch kind {
        case .inMemory:
            let store = InMemoryRecordStore()
            made = TestStore(store: store, reopen: { store }, cleanup: {})
        case .sqlite:
            let directory = NSTemporaryDirectory() + "records-test-\(UUID().uuidString)"
            let url = "sqlite:\(directory)/records.db"
            let open = { try RecordStoreFactory.open(url: url, poolSize: 4, busyTimeoutMs: 5000) }
            made = TestStore(
                store: try open(), reopen: open, cleanup: { try? FileManager.default.removeItem(atPath: directory) })
        case .postgres:
            let (url, cleanup) = try PostgresTestDatabase.freshSchema()
            let open = { try RecordStoreFactory.open(url: url, poolSize: 4, busyTimeoutMs: 5000) }
            made = TestStore(store: try open(), reopen: open, cleanup: cleanup)
        case .pgbouncer:
            let (url, cleanup) = try PostgresTestDatabase.freshDatabaseThroughPgBouncer()
            let open = {
                try RecordStoreFactory.open(url: url, poolSize: 4, busyTimeoutMs: 5000, postgresStatements: .unnamed)
            }
            made = TestStore(store: try open(), reopen: open, cleanup: cleanup)
        }
        if migrate { try made.store.migrate() }
        return made
    }
}

/// The PostgreSQL server of the tests (PRESIGN_TEST_POSTGRES_URL), one schema per test.
enum PostgresTestDatabase {
    /// The server URL, or a failure that says how to get one.
    static func baseURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["PRESIGN_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw MissingPostgres()
        }
        return url
    }

    /// `url` with one more query parameter.
    static func adding(_ parameter: String, to url: String) -> String {
        url + (url.contains("?") ? "&" : "?") + parameter
    }

    /// `url` with the password of its user-info set to `password` (for tests that need a wrong one).
    static func replacingPassword(in url: String, with password: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? url.endIndex
        guard let at = url[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
            let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
        else { return url }
        var text = url
        text.replaceSubrange(text.index(after: colon)..<at, with: password)
        return text
    }

    /// Runs SQL on the server directly (not through a store).
    static func execute(_ sql: String, _ values: [SQLValue] = []) throws -> PostgresResult {
        let connection = try PostgresConnection(address: PostgresAddress(url: try baseURL()), connectTimeoutSeconds: 5)
        return try connection.execute(sql, values)
    }

    /// A new empty database and a URL that reaches it through PgBouncer (PRESIGN_TEST_PGBOUNCER_URL, whose
    /// `* =` entry passes every database name through; no search_path option passes the pooler, hence a
    /// database rather than a schema); the returned closure drops it.
    static func freshDatabaseThroughPgBouncer() throws -> (url: String, cleanup: () -> Void) {
        guard let bouncer = ProcessInfo.processInfo.environment["PRESIGN_TEST_PGBOUNCER_URL"], !bouncer.isEmpty,
            let slash = bouncer.lastIndex(of: "/")
        else { throw MissingPgBouncer() }
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try execute("CREATE DATABASE \(name)")
        return (String(bouncer[...slash]) + name, { _ = try? execute("DROP DATABASE \(name) WITH (FORCE)") })
    }

    /// A new empty schema and a URL whose connections use it; the returned closure drops it.
    static func freshSchema() throws -> (url: String, cleanup: () -> Void) {
        let base = try baseURL()
        let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        _ = try execute("CREATE SCHEMA \(schema)")
        let url = adding("options=-csearch_path%3D\(schema)", to: base)
        return (url, { _ = try? execute("DROP SCHEMA \(schema) CASCADE") })
    }
}

/// Builders of test values with unique keys.
enum Sample {
    /// A new lower-case UUID.
    static func uuid() -> String { UUID().uuidString.lowercased() }

    /// An intent of `owner` for `key`.
    static func intent(
        owner: String = "owner-\(uuid())", key: String = uuid(), expiresAtMs: Int64 = 2_000_000_000_000,
        permanentKey: String? = nil, contentType: String? = "image/jpeg",
        allowed: [String] = ["image/jpeg", "image/png"]
    ) -> UploadIntent {
        UploadIntent(
            ownerId: owner, imageKey: key, objectKey: "temp/\(key).jpg", permanentKey: permanentKey, type: "PROFILE",
            contentType: contentType, allowedContentTypes: allowed, maxBytes: 10_485_760,
            createdAtMs: 1_700_000_000_000, expiresAtMs: expiresAtMs)
    }

    /// A record of `owner` for `key`.
    static func record(
        owner: String = "owner-\(uuid())", key: String = uuid(), id: String = uuid(), type: String = "PROFILE",
        createdAtMs: Int64 = 1_700_000_000_000, metadata: String = #"{"w":640,"h":480}"#
    ) -> ImageRecord {
        ImageRecord(
            id: id, ownerId: owner, imageKey: key, objectKey: "images/\(key).jpg", type: type,
            contentType: "image/jpeg", size: 12_345, etag: "\"9b2cf535f27731c974343645a3985328\"",
            metadataJSON: metadata, createdAtMs: createdAtMs)
    }
}

/// Runs `body(index)` on `count` threads that all start together; returns when every one has finished.
func runConcurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let ready = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        let thread = Thread {
            ready.signal()
            start.wait()
            body(index)
            finished.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<count { ready.wait() }
    for _ in 0..<count { start.signal() }
    finished.wait()
}

/// Collects values from many threads.
final class Collector<Value: Sendable>: @unchecked Sendable {
    /// Guards `storage`.
    private let lock = NSLock()
    /// The values so far.
    private var storage: [Value] = []

    /// Adds one value.
    func append(_ value: Value) {
        lock.lock()
        storage.append(value)
        lock.unlock()
    }

    /// A copy of the values so far.
    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
