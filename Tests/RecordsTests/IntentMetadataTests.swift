import Config
import Foundation
import Testing

@testable import Records

/// Schema version 5: an intent may carry the metadata its record keeps (Uppy's file metadata). The batch
/// layout carries it as an optional last field (entries written before keep decoding), the per-row
/// tables in a nullable `metadata` column; databases of version 4 migrate in place on SQLite and
/// PostgreSQL.
@Suite struct IntentMetadataTests {
    /// An intent with metadata (non-ASCII, escapes, an empty object is not the same as none).
    static func withMetadata(_ json: String = #"{"name":"Vidéo 🙂.mp4","caption":"a \"b\"\nc"}"#) -> UploadIntent {
        var intent = Sample.intent(key: "delete/uppy/\(Sample.uuid())#2~upload")
        intent.metadataJSON = json
        return intent
    }

    @Test func theBatchLayoutCarriesMetadataOnlyWhenThereIsSome() throws {
        let plain = Sample.intent()
        var empty = plain
        empty.metadataJSON = "{}"
        let with = Self.withMetadata()
        let (blobs, places) = try IntentBatchCodec.encode([plain, with, empty])
        blobs[0].withUnsafeBytes { blob in
            #expect(IntentBatchCodec.decode(blob, at: places[0].offset)?.metadataJSON == nil)
            #expect(IntentBatchCodec.decode(blob, at: places[1].offset) == with)
            #expect(IntentBatchCodec.decode(blob, at: places[2].offset)?.metadataJSON == "{}")
            #expect(IntentBatchCodec.decodeAll(blob)?.map(\.intent) == [plain, with, empty])
        }
        // An intent without metadata is written exactly as before version 5: no extra bytes.
        #expect(places[1].offset - places[0].offset == (try IntentBatchCodec.entrySize(plain)))
        var withoutMetadata = with
        withoutMetadata.metadataJSON = nil
        #expect(
            try IntentBatchCodec.entrySize(with) == (try IntentBatchCodec.entrySize(withoutMetadata)) + 4
                + with.metadataJSON!.utf8.count)
    }

    @Test func everyCutOfAnEntryWithMetadataIsRefusedWithoutACrash() throws {
        let with = Self.withMetadata()
        let blob = try IntentBatchCodec.encode([with]).blobs[0]
        for length in 0..<blob.count {
            let cut = Array(blob.prefix(length))
            cut.withUnsafeBytes { #expect(IntentBatchCodec.decode($0, at: 1) == nil, "length \(length)") }
        }
        // An entry whose own length ends inside the metadata field is malformed; one that ends just
        // before it is an entry without metadata.
        let field = 4 + with.metadataJSON!.utf8.count
        let entry = blob.count - 1
        for shorter in 1...field {
            var changed = blob
            withUnsafeBytes(of: UInt32(entry - shorter).littleEndian) { for i in 0..<4 { changed[1 + i] = $0[i] } }
            let decoded = changed.withUnsafeBytes { IntentBatchCodec.decode($0, at: 1) }
            if shorter < field {
                #expect(decoded == nil, "entry shortened by \(shorter)")
            } else {
                var without = with
                without.metadataJSON = nil
                #expect(decoded == without)
            }
        }
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
            let values = [.int(SQLiteRecordStore.keyHash(old.imageKey))] + Array(try Schema.values(of: old).dropLast())
            let placeholders = (1...values.count).map { "?\($0)" }.joined(separator: ", ")
            _ = try c.run(
                "INSERT INTO intents (key_hash, \(Self.version4IntentColumns)) VALUES (\(placeholders))", values)
        }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000, intentIndexCapacity: 0)
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
            let c = try PostgresConnection(url: PostgresURL(url), connectTimeoutSeconds: 5)
            _ = try c.execute(PostgresSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 4 {
                for statement in migration.postgres { _ = try c.execute(statement) }
                _ = try c.execute("INSERT INTO schema_version (version) VALUES ($1)", [.int(Int64(migration.version))])
            }
            let values = Array(try Schema.values(of: old).dropLast())
            let placeholders = (1...values.count).map { "$\($0)" }.joined(separator: ", ")
            _ = try c.execute("INSERT INTO intents (\(Self.version4IntentColumns)) VALUES (\(placeholders))", values)
        }
        let store = try PostgresRecordStore(url: PostgresURL(url), poolSize: 1, connectTimeoutMs: 5000)
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
        #expect(Schema.intentColumns == Self.version4IntentColumns + ", metadata")
    }

    /// The intent columns of schema versions 1 to 4.
    static let version4IntentColumns =
        "image_key, owner_id, object_key, permanent_key, type, content_type, allowed_content_types, max_bytes, created_at_ms, expires_at_ms"
}
