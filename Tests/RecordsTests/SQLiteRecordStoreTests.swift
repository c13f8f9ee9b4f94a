import Foundation
import TestSupport
import Testing

@testable import Records

/// What only the SQLite store does: the file, its settings, its integrity, and surviving a reopen.
@Suite(.blocking) struct SQLiteRecordStoreTests {
    /// A fresh path in a directory that does not exist yet.
    func freshPath() -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "records-sqlite-\(UUID().uuidString)"
        return (directory, directory + "/nested/deeper/records.db")
    }

    @Test func createsTheFileAndItsDirectoriesWithWALAndFullSync() throws {
        let (directory, path) = freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(!FileManager.default.fileExists(atPath: path))
        let store = try SQLiteRecordStore(path: path, readers: 2, busyTimeoutMs: 1000)
        try store.migrate()
        #expect(FileManager.default.fileExists(atPath: path))
        let probe = try SQLiteConnection(path: path, create: false, readOnly: true, busyTimeoutMs: 1000)
        #expect(try probe.scalarText("PRAGMA journal_mode") == "wal")
        // synchronous is per connection: 2 = FULL, as every connection of the store sets it.
        #expect(try probe.scalarText("PRAGMA synchronous") == "2")
        #expect(try probe.scalarText("PRAGMA foreign_keys") == "1")
        let tables = try probe.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", []) {
            $0.text(0)
        }
        #expect(
            tables == [
                "event_inbox", "intent_claims", "intents", "leases", "multipart_creations", "multipart_uploads",
                "native_uploads", "object_deletions", "quota_reservations", "quota_usage", "rate_buckets",
                "rate_instances",
                "record_slots", "records", "schema_version", "sqlite_sequence", "webhook_outbox",
            ])
        let indexes = try probe.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name", []
        ) {
            $0.text(0)
        }
        #expect(
            indexes == [
                "event_inbox_due", "intent_claims_updated", "intents_expiry", "intents_object_key",
                "multipart_creations_noted", "multipart_uploads_created", "native_uploads_open",
                "quota_reservations_day", "record_slots_record", "records_image_key", "records_owner_created",
                "records_owner_sha256", "records_scanning", "webhook_outbox_due", "webhook_outbox_event",
                "webhook_outbox_finished", "webhook_outbox_state", "webhook_outbox_subject",
            ])
    }

    /// Intent batches commit with synchronous=NORMAL, everything else with FULL; the writer switches
    /// only when the kind of transaction changes (a PRAGMA per commit cost two parses each).
    @Test func theWriterIsFullForDurableWritesAndNormalForIntentsSwitchingOnlyOnAChange() throws {
        let (directory, path) = freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        try store.migrate()
        func mode() throws -> String? {
            try store.writer.withConnection { (c) throws(RecordsError) in try c.scalarText("PRAGMA synchronous") }
        }
        #expect(try mode() == "2")
        try store.putIntents([Sample.intent()])
        #expect(try mode() == "1", "NORMAL after an intent batch")
        try store.putIntents([Sample.intent()])
        #expect(try mode() == "1")
        let intent = Sample.intent()
        try store.putIntents([intent])
        _ = try store.insertRecords([Sample.record(owner: intent.ownerId, key: intent.imageKey)])
        #expect(try mode() == "2", "FULL for a record, and until the next intent batch")
        #expect(try store.record(imageKey: intent.imageKey) != nil)
        try store.putIntents([Sample.intent()])
        #expect(try mode() == "1")
    }

    @Test func schemaVersionIsRecordedOnce() throws {
        let (directory, path) = freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        #expect(try store.schemaVersion() == 0)
        try store.migrate()
        try store.migrate()
        try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000).migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        let probe = try SQLiteConnection(path: path, create: false, readOnly: true, busyTimeoutMs: 1000)
        #expect(try probe.scalarText("SELECT COUNT(*) FROM schema_version") == "\(Schema.migrations.count)")
    }

    @Test func dataSurvivesReopeningAndTheFileIsSound() throws {
        let (directory, path) = freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let records = (0..<50).map { Sample.record(createdAtMs: Int64($0)) }
        do {
            let store = try SQLiteRecordStore(path: path, readers: 2, busyTimeoutMs: 1000)
            try store.migrate()
            _ = try store.insertRecords(records)
        }
        let reopened = try SQLiteRecordStore(path: path, readers: 2, busyTimeoutMs: 1000)
        try reopened.migrate()
        for record in records { #expect(try reopened.record(imageKey: record.imageKey) == record) }
        #expect(try reopened.integrityCheck() == "ok")
    }

    @Test func aFileThatIsNotADatabaseIsReportedCorrupt() throws {
        let (directory, path) = freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 100)
            try store.migrate()
        } throws: { error in
            guard case .corrupt = error as? RecordsError else { return false }
            return true
        }
    }

    @Test func twoStoresOnOneFileSeeEachOthersWrites() throws {
        let (directory, path) = freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try SQLiteRecordStore(path: path, readers: 2, busyTimeoutMs: 5000)
        let second = try SQLiteRecordStore(path: path, readers: 2, busyTimeoutMs: 5000)
        try first.migrate()
        try second.migrate()
        let record = Sample.record()
        #expect(try first.insertRecords([record]) == [.inserted(record)])
        let rival = Sample.record(key: record.imageKey)
        #expect(try second.insertRecords([rival]) == [.existing(record)])
        #expect(try second.record(id: record.id, ownerId: record.ownerId) == record)
    }
}
