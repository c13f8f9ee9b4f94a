import Config
import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// What only the PostgreSQL store does: keep passwords out of messages, and survive a broken connection.
@Suite(.blocking) struct PostgresRecordStoreTests {
    /// Redaction vectors: the URL as configured, and as it may appear in a message.
    static let redactions: [(url: String, redacted: String)] = [
        ("postgres://app:s3cret@db.internal:5432/presignd", "postgres://app:<redacted>@db.internal:5432/presignd"),
        ("postgresql://app:p%40ss%2Fw@h/db?sslmode=require", "postgresql://app:<redacted>@h/db?sslmode=require"),
        (
            "postgres://app@h/db?password=s3cret&sslmode=disable",
            "postgres://app@h/db?password=<redacted>&sslmode=disable"
        ),
        ("postgres://h/db", "postgres://h/db"),
        ("postgres://app:s3cret@/db?host=/run/postgresql", "postgres://app:<redacted>@/db?host=/run/postgresql"),
    ]

    @Test(arguments: redactions.indices)
    func urlsAreRedacted(index: Int) throws {
        let vector = Self.redactions[index]
        #expect(PostgresURL.redact(vector.url) == vector.redacted)
        #expect(try PostgresURL(vector.url).redacted == vector.redacted)
    }

    @Test func libpqParseErrorsDoNotShowThePassword() {
        #expect {
            _ = try PostgresRecordStore(
                address: PostgresAddress(url: "postgres://app:s3cret@h/db?s3cret=1"), poolSize: 1,
                connectTimeoutMs: 2000)
        } throws: { error in
            guard case .invalidURL(let message) = error as? RecordsError else { return false }
            return !message.contains("s3cret") && message.contains("<redacted>")
        }
    }

    @Test func aRefusedConnectionIsUnavailableWithoutThePassword() {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let store = try? PostgresRecordStore(
            address: PostgresAddress(url: "postgres://app:s3cret@127.0.0.1:1/db"), poolSize: 1, connectTimeoutMs: 2000)
        #expect(store != nil)
        #expect {
            try store?.ping()
        } throws: { error in
            guard case .unavailable(let message) = error as? RecordsError else { return false }
            return !message.contains("s3cret") && message.contains("127.0.0.1")
        }
    }

    @Test func aWrongPasswordIsUnavailableWithoutThePassword() throws {
        if ProcessInfo.processInfo.environment["PRESIGN_SKIP_POSTGRES"] == "1" { return }
        let base = try PostgresTestDatabase.baseURL()
        let wrong = "wrong-Pa55word-\(UUID().uuidString.prefix(8))"
        let url = PostgresTestDatabase.replacingPassword(in: base, with: wrong)
        #expect(url != base)
        let store = try PostgresRecordStore(address: PostgresAddress(url: url), poolSize: 1, connectTimeoutMs: 2000)
        #expect {
            try store.ping()
        } throws: { error in
            guard case .unavailable(let message) = error as? RecordsError else { return false }
            return !message.contains(wrong) && message.contains("password authentication failed")
        }
    }

    @Test func synchronousCommitOffIsTurnedBackOn() throws {
        if ProcessInfo.processInfo.environment["PRESIGN_SKIP_POSTGRES"] == "1" { return }
        let url = PostgresTestDatabase.adding(
            "options=-csynchronous_commit%3Doff", to: try PostgresTestDatabase.baseURL())
        let connection = try PostgresConnection(address: PostgresAddress(url: url), connectTimeoutSeconds: 5)
        #expect(try connection.execute("SHOW synchronous_commit").text(0, 0) == "on")
        let remote = PostgresTestDatabase.adding(
            "options=-csynchronous_commit%3Dremote_apply", to: try PostgresTestDatabase.baseURL())
        let kept = try PostgresConnection(address: PostgresAddress(url: remote), connectTimeoutSeconds: 5)
        #expect(try kept.execute("SHOW synchronous_commit").text(0, 0) == "remote_apply")
    }

    @Test func aTerminatedConnectionIsReplaced() throws {
        if ProcessInfo.processInfo.environment["PRESIGN_SKIP_POSTGRES"] == "1" { return }
        let (schemaURL, cleanup) = try PostgresTestDatabase.freshSchema()
        defer { cleanup() }
        let name = "presignd-test-\(UUID().uuidString.prefix(8))"
        let store = try PostgresRecordStore(
            address: PostgresAddress(url: PostgresTestDatabase.adding("application_name=\(name)", to: schemaURL)),
            poolSize: 2,
            connectTimeoutMs: 2000)
        try store.migrate()
        let record = Sample.record()
        _ = try store.insertRecords([record])

        let killed = try PostgresTestDatabase.execute(
            "SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", [.text(name)])
        #expect(try killed.int64(0, 0) >= 1)
        // The pooled connection is dead now; the store notices, reconnects and answers.
        #expect(try store.record(imageKey: record.imageKey) == record)
        let second = Sample.record()
        #expect(try store.insertRecords([second]) == [.inserted(second)])
    }
}
