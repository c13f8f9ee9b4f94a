import Foundation
import RecordsTestSupport
import TestSupport
import Testing

@testable import Records

/// Schema version 3 (the content check's columns): a database made by versions 1 and 2, holding a record,
/// migrates in place on SQLite and PostgreSQL; the old record reads back with no detected type or size,
/// and a new record keeps them.
@Suite(.blocking) struct SchemaVersion3Tests {
    /// A record as the content check makes it.
    static func checked(key: String = Sample.uuid()) -> ImageRecord {
        var record = Sample.record(key: key)
        record.contentType = "image/png"
        record.detectedType = "image/png"
        record.width = 4032
        record.height = 3024
        return record
    }

    /// The 10 columns a version-2 `records` table has, and their values for `record`.
    static let oldColumns =
        "id, owner_id, image_key, object_key, type, content_type, size, etag, metadata, created_at_ms"

    static func oldValues(_ r: ImageRecord) -> [SQLValue] {
        [
            .text(r.id), .text(r.ownerId), .text(r.imageKey), .text(r.objectKey), .text(r.type), .text(r.contentType),
            .int(r.size), .text(r.etag), .text(r.metadataJSON), .int(r.createdAtMs),
        ]
    }

    @Test func version3AddsThreeNullableColumns() throws {
        let three = try #require(Schema.migrations.first { $0.version == 3 })
        #expect(three.sqlite.count == 3 && three.postgres.count == 3)
        #expect(Schema.recordColumns.contains("detected_type, width, height"))
        // Every version once, in order; versions 6, 8, 11 and 13 came from branches merged separately from
        // 7, 9, 12 and 14 (`missingMigrations` applies a version whenever it arrives).
        let versions = Schema.migrations.map(\.version)
        #expect(
            versions
                == Array(1...Schema.latestVersion).filter {
                    ($0 != 6 && $0 != 8 && $0 != 11 && $0 != 13) || versions.contains($0)
                })
    }

    @Test func sqliteMigratesAVersion2Database() throws {
        let directory = NSTemporaryDirectory() + "records-v3-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/records.db"
        let old = Sample.record()
        do {
            // What a build of schema version 2 left behind.
            let c = try SQLiteConnection(path: path, create: true, readOnly: false, busyTimeoutMs: 1000)
            try c.execute(SQLiteSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 2 {
                for statement in migration.sqlite { try c.execute(statement) }
                _ = try c.run("INSERT INTO schema_version (version) VALUES (?1)", [.int(Int64(migration.version))])
            }
            let placeholders = (1...10).map { "?\($0)" }.joined(separator: ", ")
            _ = try c.run("INSERT INTO records (\(Self.oldColumns)) VALUES (\(placeholders))", Self.oldValues(old))
        }
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        #expect(try store.schemaVersion() == 2)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        let read = try #require(try store.record(imageKey: old.imageKey))
        #expect(read == old)
        #expect(read.detectedType == nil && read.width == nil && read.height == nil)
        let new = Self.checked()
        _ = try store.insertRecords([new])
        #expect(try store.record(imageKey: new.imageKey) == new)
        #expect(try store.record(id: new.id, ownerId: new.ownerId)?.width == 4032)
    }

    @Test func postgresMigratesAVersion2Database() throws {
        let (url, cleanup) = try PostgresTestDatabase.freshSchema()
        defer { cleanup() }
        let old = Sample.record()
        do {
            let c = try PostgresConnection(address: PostgresAddress(url: url), connectTimeoutSeconds: 5)
            _ = try c.execute(PostgresSchema.versionTable)
            for migration in Schema.migrations where migration.version <= 2 {
                for statement in migration.postgres { _ = try c.execute(statement) }
                _ = try c.execute("INSERT INTO schema_version (version) VALUES ($1)", [.int(Int64(migration.version))])
            }
            let placeholders = (1...10).map { "$\($0)" }.joined(separator: ", ")
            _ = try c.execute("INSERT INTO records (\(Self.oldColumns)) VALUES (\(placeholders))", Self.oldValues(old))
        }
        let store = try PostgresRecordStore(address: PostgresAddress(url: url), poolSize: 1, connectTimeoutMs: 5000)
        #expect(try store.schemaVersion() == 2)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        let read = try #require(try store.record(imageKey: old.imageKey))
        #expect(read == old)
        let new = Self.checked()
        let unchecked = Sample.record()
        _ = try store.insertRecords([new, unchecked])
        #expect(try store.record(imageKey: new.imageKey) == new)
        #expect(try store.record(imageKey: unchecked.imageKey)?.detectedType == nil)
        let page = try store.listRecords(ownerId: new.ownerId, type: nil, limit: 10, after: nil)
        #expect(page.records == [new])
    }

    @Test(arguments: StoreKind.kinds)
    func detectedFieldsRoundTrip(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let checked = Self.checked()
        var unknownSize = Self.checked()
        unknownSize.width = nil
        unknownSize.height = nil
        _ = try test.store.insertRecords([checked, unknownSize])
        #expect(try test.store.record(imageKey: checked.imageKey) == checked)
        #expect(try test.store.record(imageKey: unknownSize.imageKey) == unknownSize)
        #expect(try test.store.deleteRecord(id: checked.id, ownerId: checked.ownerId) == checked)
    }
}
