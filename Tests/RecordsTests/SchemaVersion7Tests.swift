import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// Schema version 7 (claims, the event inbox, the multipart ledger) on databases that earlier builds left:
/// a database of version 5 (without 6, which another change adds) migrates in place, keeps its records and
/// intents, and has the new tables; version 6 stays missing here and is applied when its build is merged
/// (versions are looked up one by one).
@Suite(.blocking) struct SchemaVersion7Tests {
    /// A claim, an inbox entry and a ledger entry, written and read on `store`.
    static func useTheNewTables(_ store: any ExactlyOnceStore, key: String) throws {
        let request = ClaimRequest(
            imageKey: key, intentCreatedAtMs: 1_700_000_000_000, claimant: .event, token: "t", nowMs: 1, leaseMs: 10)
        guard case .won = try store.claimIntent(request) else {
            Issue.record("no claim won on a migrated database")
            return
        }
        _ = try store.enqueueEvent(source: "rgw", body: [1], receivedAtMs: 1, limits: InboxLimits())
        #expect(try store.inboxStats().pending == 1)
        let upload = MultipartUploadEntry(objectKey: "k", uploadId: "u", imageKey: key, ownerId: "o", createdAtMs: 1)
        try store.putMultipartUpload(upload)
        #expect(try store.multipartUpload(objectKey: "k", uploadId: "u") == upload)
    }

    /// The columns of `records` at version 5 (version 11 adds `sha256`), the first of `Schema.recordColumns`.
    static let version5RecordColumns =
        "id, owner_id, image_key, object_key, type, content_type, size, etag, metadata, created_at_ms, detected_type, width, height"

    @Test func sqliteMigratesAVersion5Database() throws {
        let directory = NSTemporaryDirectory() + "records-v7-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/records.db"
        let record = Sample.record()
        do {
            let c = try SQLiteConnection(path: path, create: true, readOnly: false, busyTimeoutMs: 1000)
            try c.execute(SQLiteSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 5 {
                for statement in migration.sqlite { try c.execute(statement) }
                _ = try c.run("INSERT INTO schema_version (version) VALUES (?1)", [.int(Int64(migration.version))])
            }
            _ = try c.run(
                "INSERT INTO records (\(Self.version5RecordColumns)) VALUES (\((1...13).map { "?\($0)" }.joined(separator: ", ")))",
                Array(Schema.values(of: record).prefix(13)))
        }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        #expect(try store.schemaVersion() == 5)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        #expect(try store.record(imageKey: record.imageKey) == record)
        // The claim of a recorded key reads its record.
        let request = ClaimRequest(
            imageKey: record.imageKey, intentCreatedAtMs: 1, claimant: .confirm, token: "t", nowMs: 1, leaseMs: 1)
        #expect(try store.claimIntent(request) == .recorded(record))
        try Self.useTheNewTables(store, key: Sample.uuid())
        try store.migrate()
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func postgresMigratesAVersion5Database() throws {
        let (url, cleanup) = try PostgresTestDatabase.freshSchema()
        defer { cleanup() }
        let record = Sample.record()
        do {
            let c = try PostgresConnection(address: PostgresAddress(url: url), connectTimeoutSeconds: 5)
            _ = try c.execute(PostgresSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 5 {
                for statement in migration.postgres { _ = try c.execute(statement) }
                _ = try c.execute("INSERT INTO schema_version (version) VALUES ($1)", [.int(Int64(migration.version))])
            }
            _ = try c.execute(
                "INSERT INTO records (\(Self.version5RecordColumns)) VALUES (\((1...13).map { "$\($0)" }.joined(separator: ", ")))",
                Array(Schema.values(of: record).prefix(13)))
        }
        let store = try PostgresRecordStore(address: PostgresAddress(url: url), poolSize: 2, connectTimeoutMs: 5000)
        #expect(try store.schemaVersion() == 5)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        #expect(try store.record(imageKey: record.imageKey) == record)
        try Self.useTheNewTables(store, key: Sample.uuid())
    }
}
