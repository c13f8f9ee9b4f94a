import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// Schema version 11 (declared size and digests on intents, `sha256` on records, its partial index): a
/// database of version 10 holding an intent and a record migrates in place on SQLite and PostgreSQL; they
/// read back with nothing declared and no SHA-256, and new ones keep theirs.
@Suite(.blocking) struct SchemaVersion11Tests {
    /// The columns of `records` at version 10.
    static let version10RecordColumns =
        "id, owner_id, image_key, object_key, type, content_type, size, etag, metadata, created_at_ms, detected_type, width, height"

    /// `count` placeholders written by `p`.
    static func placeholders(_ count: Int, _ p: (Int) -> String) -> String {
        (1...count).map(p).joined(separator: ", ")
    }

    /// An intent and a record with everything version 11 adds.
    static func declared() -> (UploadIntent, ImageRecord) {
        var intent = Sample.intent()
        intent.declaredSize = 42
        intent.checksumSHA256 = RecordDigestsConformanceTests.sha
        intent.contentMD5 = "Jl+55GiW2vkDAayLd69RIw=="
        var record = Sample.record()
        record.sha256 = RecordDigestsConformanceTests.sha
        return (intent, record)
    }

    @Test func version11AddsFiveStatementsInBothDialects() throws {
        let eleven = try #require(Schema.migrations.first { $0.version == 11 })
        #expect(eleven.sqlite.count == 5 && eleven.postgres.count == 5)
        #expect(Schema.intentColumns.hasSuffix("declared_size, sha256, content_md5"))
        #expect(Schema.recordColumns.contains("height, sha256"))
    }

    @Test func sqliteMigratesAVersion10Database() throws {
        let directory = NSTemporaryDirectory() + "records-v11-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/records.db"
        let oldIntent = Sample.intent()
        let oldRecord = Sample.record()
        do {
            let c = try SQLiteConnection(path: path, create: true, readOnly: false, busyTimeoutMs: 1000)
            try c.execute(SQLiteSchema.versionTable)
            try c.transaction { () throws(RecordsError) in
                for migration in Schema.migrations where migration.version <= 10 {
                    for statement in migration.sqlite { try c.execute(statement) }
                    if let program = SQLiteSchema.programs[migration.version] { try program(c) }
                    _ = try c.run(
                        "INSERT INTO schema_version (version) VALUES (?1)", [.int(Int64(migration.version))])
                }
            }
            _ = try c.run(
                "INSERT INTO intents (key_order, \(Schema.intentColumnsV10)) VALUES (\(Self.placeholders(12) { "?\($0)" }))",
                [.int(IntentKeyOrder.of(oldIntent.imageKey))] + Array(try Schema.values(of: oldIntent).prefix(11)))
            _ = try c.run(
                "INSERT INTO records (\(Self.version10RecordColumns)) VALUES (\(Self.placeholders(13) { "?\($0)" }))",
                Array(Schema.values(of: oldRecord).prefix(13)))
        }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        #expect(try store.schemaVersion() == 10)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        try Self.expectMigrated(store, oldIntent: oldIntent, oldRecord: oldRecord)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func postgresMigratesAVersion10Database() throws {
        let (url, cleanup) = try PostgresTestDatabase.freshSchema()
        defer { cleanup() }
        let oldIntent = Sample.intent()
        let oldRecord = Sample.record()
        do {
            let c = try PostgresConnection(address: PostgresAddress(url: url), connectTimeoutSeconds: 5)
            _ = try c.execute(PostgresSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 10 {
                for statement in migration.postgres { _ = try c.execute(statement) }
                _ = try c.execute("INSERT INTO schema_version (version) VALUES ($1)", [.int(Int64(migration.version))])
            }
            _ = try c.execute(
                "INSERT INTO intents (\(Schema.intentColumnsV10)) VALUES (\(Self.placeholders(11) { "$\($0)" }))",
                Array(try Schema.values(of: oldIntent).prefix(11)))
            _ = try c.execute(
                "INSERT INTO records (\(Self.version10RecordColumns)) VALUES (\(Self.placeholders(13) { "$\($0)" }))",
                Array(Schema.values(of: oldRecord).prefix(13)))
        }
        let store = try PostgresRecordStore(address: PostgresAddress(url: url), poolSize: 2, connectTimeoutMs: 5000)
        #expect(try store.schemaVersion() == 10)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        try Self.expectMigrated(store, oldIntent: oldIntent, oldRecord: oldRecord)
    }

    /// After the migration: the version-10 intent and record read back unchanged, and an intent and a
    /// record with declared digests are stored, read back and found by their SHA-256.
    static func expectMigrated(_ store: any LifecycleStore, oldIntent: UploadIntent, oldRecord: ImageRecord) throws {
        #expect(try store.intent(imageKey: oldIntent.imageKey) == oldIntent)
        #expect(try store.record(imageKey: oldRecord.imageKey) == oldRecord)
        let (intent, record) = Self.declared()
        try store.putIntents([intent])
        _ = try store.insertRecords([record])
        #expect(try store.intent(imageKey: intent.imageKey) == intent)
        #expect(try store.record(imageKey: record.imageKey) == record)
        #expect(
            try store.listRecords(
                ownerId: record.ownerId, sha256: RecordDigestsConformanceTests.sha, type: nil, limit: 5, after: nil
            ).records == [record])
    }
}
