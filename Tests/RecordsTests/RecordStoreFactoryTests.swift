import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// Choosing a store from its URL, and refusing URLs without echoing secrets.
@Suite(.blocking) struct RecordStoreFactoryTests {
    @Test(arguments: [
        "sqlite:", "sqlite:///", "sqlite::memory:", "mysql://u:hunter2@h/db", "hunter2", "file:/tmp/x.db",
    ])
    func unusableURLsAreRefused(url: String) {
        #expect {
            _ = try RecordStoreFactory.open(url: url, poolSize: 1, busyTimeoutMs: 100)
        } throws: { error in
            guard case .invalidURL(let message) = error as? RecordsError else { return false }
            return !message.contains("hunter2")
        }
    }

    @Test func sqliteURLFormsOpenTheSameFile() throws {
        let directory = NSTemporaryDirectory() + "records-factory-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let plain = try RecordStoreFactory.open(url: "sqlite:\(directory)/a.db", poolSize: 2, busyTimeoutMs: 100)
        try plain.migrate()
        let record = Sample.record()
        _ = try plain.insertRecords([record])
        let tripleSlash = try RecordStoreFactory.open(
            url: "sqlite://\(directory)/a.db", poolSize: 2, busyTimeoutMs: 100)
        #expect(tripleSlash is SQLiteRecordStore)
        #expect(try tripleSlash.record(imageKey: record.imageKey) == record)
    }

    @Test(arguments: ["postgres://u:hunter2@127.0.0.1:1/db", "postgresql://u:hunter2@127.0.0.1:1/db"])
    func postgresURLsMakeAPostgresStoreWithoutConnecting(url: String) throws {
        let store = try RecordStoreFactory.open(url: url, poolSize: 2, busyTimeoutMs: 2000)
        let postgres = try #require(store as? PostgresRecordStore)
        #expect(!postgres.redactedURL.contains("hunter2"))
    }
}
