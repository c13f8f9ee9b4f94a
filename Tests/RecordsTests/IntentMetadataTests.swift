import Crypto
import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// Schema version 5: an intent may carry the metadata its record keeps (Uppy's file metadata), in a
/// nullable `metadata` column; databases of version 4 migrate in place on SQLite and PostgreSQL.
@Suite(.blocking) struct IntentMetadataTests {
    /// An intent with metadata (non-ASCII, escapes, an empty object is not the same as none).
    static func withMetadata(_ json: String = #"{"name":"Vidéo 🙂.mp4","caption":"a \"b\"\nc"}"#) -> UploadIntent {
        var intent = Sample.intent(key: "delete/uppy/\(Sample.uuid())#2~upload")
        intent.metadataJSON = json
        return intent
    }

    @Test(arguments: StoreKind.kinds)
    func metadataRoundTripsThroughEveryStore(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let with = Self.withMetadata()
        let plain = Sample.intent()
        try test.store.putIntents([with, plain])
        #expect(try test.store.intent(imageKey: with.imageKey) == with)
        #expect(try test.store.intent(imageKey: plain.imageKey)?.metadataJSON == nil)
        // A re-issue replaces the metadata with the new intent's.
        var again = with
        again.metadataJSON = #"{"name":"other"}"#
        try test.store.putIntents([again])
        #expect(try test.store.intent(imageKey: with.imageKey)?.metadataJSON == #"{"name":"other"}"#)
        again.metadataJSON = nil
        try test.store.putIntents([again])
        #expect(try test.store.intent(imageKey: with.imageKey)?.metadataJSON == nil)
        // The janitor's reading keeps it too.
        var expired = Self.withMetadata()
        expired.expiresAtMs = 1000
        try test.store.putIntents([expired])
        let found = try test.store.expiredIntents(nowMs: 2000, limit: 10)
        #expect(found.contains(expired))
    }

    @Test func sqliteMigratesAVersion4Database() throws {
        let directory = NSTemporaryDirectory() + "records-v5-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/records.db"
        let old = Sample.intent()
        do {
            // What a build of schema version 4 left behind: an intent in the per-row table.
            let c = try SQLiteConnection(path: path, create: true, readOnly: false, busyTimeoutMs: 1000)
            try c.execute(SQLiteSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 4 {
                for statement in migration.sqlite { try c.execute(statement) }
                _ = try c.run("INSERT INTO schema_version (version) VALUES (?1)", [.int(Int64(migration.version))])
            }
            let keyHash = SHA256.hash(old.imageKey).withUnsafeBytes { $0.loadUnaligned(as: Int64.self) }
            let values = [.int(keyHash)] + Array(try Schema.values(of: old).prefix(10))
            let placeholders = (1...values.count).map { "?\($0)" }.joined(separator: ", ")
            _ = try c.run(
                "INSERT INTO intents (key_hash, \(Self.version4IntentColumns)) VALUES (\(placeholders))", values)
        }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        #expect(try store.schemaVersion() == 4)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        #expect(try store.intent(imageKey: old.imageKey) == old)
        let new = Self.withMetadata()
        try store.putIntents([new])
        #expect(try store.intent(imageKey: new.imageKey) == new)
    }

    @Test func postgresMigratesAVersion4Database() throws {
        let (url, cleanup) = try PostgresTestDatabase.freshSchema()
        defer { cleanup() }
        let old = Sample.intent()
        do {
            let c = try PostgresConnection(address: PostgresAddress(url: url), connectTimeoutSeconds: 5)
            _ = try c.execute(PostgresSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 4 {
                for statement in migration.postgres { _ = try c.execute(statement) }
                _ = try c.execute("INSERT INTO schema_version (version) VALUES ($1)", [.int(Int64(migration.version))])
            }
            let values = Array(try Schema.values(of: old).prefix(10))
            let placeholders = (1...values.count).map { "$\($0)" }.joined(separator: ", ")
            _ = try c.execute("INSERT INTO intents (\(Self.version4IntentColumns)) VALUES (\(placeholders))", values)
        }
        let store = try PostgresRecordStore(address: PostgresAddress(url: url), poolSize: 1, connectTimeoutMs: 5000)
        #expect(try store.schemaVersion() == 4)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        #expect(try store.intent(imageKey: old.imageKey) == old)
        let new = Self.withMetadata()
        try store.putIntents([new])
        #expect(try store.intent(imageKey: new.imageKey) == new)
    }

    @Test func version5AddsOneNullableColumnInBothDialects() throws {
        let five = try #require(Schema.migrations.first { $0.version == 5 })
        #expect(five.sqlite == ["ALTER TABLE intents ADD COLUMN metadata TEXT"])
        #expect(five.postgres == ["ALTER TABLE intents ADD COLUMN metadata TEXT"])
        #expect(Schema.intentColumnsV10 == Self.version4IntentColumns + ", metadata")
    }

    /// The intent columns of schema versions 1 to 4.
    static let version4IntentColumns =
        "image_key, owner_id, object_key, permanent_key, type, content_type, allowed_content_types, max_bytes, created_at_ms, expires_at_ms"
}
