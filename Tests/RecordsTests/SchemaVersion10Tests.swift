import Foundation
import TestSupport
import Testing

@testable import Records

/// Schema version 10 on SQLite: intents move from `intent_batches` (and the per-row table of older
/// builds) into the rows of `intents`. The fixture is a file written by the build before this version
/// (commit 0a9c255, Fixtures/intents-v9/README.md), with the intents that build read back from it.
@Suite(.blocking) struct SchemaVersion10Tests {
    /// The fixture's directory in the test bundle.
    static func fixture(_ name: String) throws -> String {
        try #require(
            Bundle.module.path(forResource: name, ofType: nil, inDirectory: "Fixtures/intents-v9"),
            "the fixture \(name) is missing from the test bundle")
    }

    /// A copy of the fixture's database in a directory of its own (the fixture itself stays untouched).
    static func copyOfTheFixture() throws -> (path: String, directory: String) {
        let directory = NSTemporaryDirectory() + "schema-v10-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/records.db"
        try FileManager.default.copyItem(atPath: try fixture("intents-v9.sqlite3"), toPath: path)
        return (path, directory)
    }

    /// What the build before read back from the fixture.
    struct Expected {
        /// Every intent it found, by image key.
        let intents: [UploadIntent]
        /// Keys it was given and found no intent for (deleted, or expired and recorded).
        let absent: [String]
        /// What `intent(objectKey:)` found, by object key.
        let byObjectKey: [String: UploadIntent]
        /// The ids of its records.
        let records: [String]
    }

    /// The fixture's expected intents, parsed.
    static func expected() throws -> Expected {
        let data = try Data(contentsOf: URL(fileURLWithPath: try fixture("intents-v9.expected.json")))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func intent(_ any: Any) throws -> UploadIntent {
            let f = try #require(any as? [String: Any])
            func text(_ name: String) -> String? { f[name] as? String }
            func number(_ name: String) throws -> Int64 { try #require((f[name] as? NSNumber)?.int64Value) }
            return UploadIntent(
                ownerId: try #require(text("ownerId")), imageKey: try #require(text("imageKey")),
                objectKey: try #require(text("objectKey")), permanentKey: text("permanentKey"),
                type: try #require(text("type")), contentType: text("contentType"),
                allowedContentTypes: try #require(f["allowedContentTypes"] as? [String]),
                maxBytes: try number("maxBytes"), createdAtMs: try number("createdAtMs"),
                expiresAtMs: try number("expiresAtMs"), metadataJSON: text("metadataJSON"))
        }
        let byObject = try #require(json["byObjectKey"] as? [String: Any])
        return Expected(
            intents: try #require(json["intents"] as? [Any]).map(intent),
            absent: try #require(json["absent"] as? [String]),
            byObjectKey: try byObject.mapValues(intent),
            records: try #require(json["records"] as? [String]))
    }

    /// Whether two intents are the same byte for byte (Swift's `==` calls NFC and NFD text equal).
    static func sameBytes(_ a: UploadIntent?, _ b: UploadIntent) -> Bool {
        guard let a, a == b else { return false }
        let texts: [(String?, String?)] = [
            (a.ownerId, b.ownerId), (a.imageKey, b.imageKey), (a.objectKey, b.objectKey),
            (a.permanentKey, b.permanentKey), (a.type, b.type), (a.contentType, b.contentType),
            (a.metadataJSON, b.metadataJSON),
            (a.allowedContentTypes.joined(separator: "\n"), b.allowedContentTypes.joined(separator: "\n")),
        ]
        return texts.allSatisfy { $0.0.map { Array($0.utf8) } == $0.1.map { Array($0.utf8) } }
    }

    @Test func theFileOfTheBuildBeforeMigratesWithEveryLiveIntent() throws {
        let (path, directory) = try Self.copyOfTheFixture()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let expected = try Self.expected()
        #expect(expected.intents.count == 14 && expected.absent.count == 2, "the fixture as written")
        let store = try SQLiteRecordStore(path: path, readers: 2, busyTimeoutMs: 5000)
        #expect(try store.schemaVersion() == 9)
        try store.migrate()
        #expect(try store.schemaVersion() == Schema.latestVersion)
        for intent in expected.intents {
            let found = try store.intent(imageKey: intent.imageKey)
            #expect(Self.sameBytes(found, intent), "\(intent.imageKey): \(String(describing: found))")
        }
        for key in expected.absent { #expect(try store.intent(imageKey: key) == nil, "\(key)") }
        for (objectKey, intent) in expected.byObjectKey {
            #expect(Self.sameBytes(try store.intent(objectKey: objectKey), intent), "\(objectKey)")
        }
        for id in expected.records {
            #expect(
                try store.record(imageKey: ["rec-1": "recorded.jpg", "rec-2": "expired-recorded.jpg"][id]!)?.id == id)
        }
        // Exactly those rows, the old tables gone, a sound file.
        let raw = try SQLiteConnection(path: path, create: false, readOnly: true, busyTimeoutMs: 5000)
        #expect(try raw.query("SELECT count(*) FROM intents", []) { $0.int64(0) } == [Int64(expected.intents.count)])
        let tables = try raw.query(
            "SELECT name FROM sqlite_master WHERE name IN ('intent_batches', 'intents_v9') OR name LIKE 'intents_key%'",
            []
        ) { $0.text(0) }
        #expect(tables.isEmpty)
        #expect(try store.integrityCheck() == "ok")
        // The janitor finds the expired, unconfirmed ones of both old places, and only those.
        let recordedKeys = Set(["recorded.jpg", "expired-recorded.jpg"])
        let due = expected.intents.filter { $0.expiresAtMs <= 1_800_000_000_000 && !recordedKeys.contains($0.imageKey) }
        #expect(Set(due.map(\.imageKey)) == ["expired-unconfirmed.jpg", "legacy/expired-row.jpg"])
        #expect(
            try store.expiredIntents(nowMs: 1_800_000_000_000, limit: 100).map(\.imageKey)
                == due.sorted(by: SQLiteRecordStore.expiryOrder).map(\.imageKey))
        // The moved intents behave as any: a re-issue replaces one, a recorded key keeps its intent.
        var reissued = try #require(expected.intents.first { $0.imageKey == "twice.jpg" })
        reissued.ownerId = "after-migration"
        var recorded = try #require(expected.intents.first { $0.imageKey == "recorded.jpg" })
        recorded.ownerId = "thief"
        try store.putIntents([reissued, recorded])
        #expect(try store.intent(imageKey: "twice.jpg")?.ownerId == "after-migration")
        #expect(try store.intent(imageKey: "recorded.jpg")?.ownerId == "recorder")
        // Migrating again changes nothing.
        try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 5000).migrate()
        #expect(try raw.query("SELECT count(*) FROM intents", []) { $0.int64(0) } == [Int64(expected.intents.count)])
    }

    @Test func everyCutOfABatchOfTheFixtureIsRefusedOrAShorterBatch() throws {
        let raw = try SQLiteConnection(
            path: try Self.fixture("intents-v9.sqlite3"), create: false, readOnly: true, busyTimeoutMs: 5000)
        let blobs = try raw.query("SELECT data FROM intent_batches ORDER BY id", []) {
            (row) throws(RecordsError) -> [UInt8] in
            try row.withBlob(0) { (bytes) throws(RecordsError) in Array(bytes) }
        }
        #expect(blobs.count == 3)
        for blob in blobs {
            let whole = try #require(blob.withUnsafeBytes { SQLiteIntentRowsMigration.LegacyBatch.decode($0) })
            #expect(!whole.isEmpty)
            for length in 0..<blob.count {
                let cut = Array(blob.prefix(length)).withUnsafeBytes {
                    SQLiteIntentRowsMigration.LegacyBatch.decode($0)
                }
                if let cut { #expect(Array(whole.prefix(cut.count)) == cut && cut.count < whole.count) }
            }
            // Another layout version is not read.
            var other = blob
            other[0] = 2
            #expect(other.withUnsafeBytes { SQLiteIntentRowsMigration.LegacyBatch.decode($0) } == nil)
        }
    }

    @Test func aBatchThatCannotBeReadLeavesTheFileAsItWas() throws {
        let (path, directory) = try Self.copyOfTheFixture()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let raw = try SQLiteConnection(path: path, create: false, readOnly: false, busyTimeoutMs: 5000)
        try raw.run(
            "UPDATE intent_batches SET data = ?1 WHERE id = (SELECT MIN(id) FROM intent_batches)", [.blob([1, 9, 9])])
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 5000)
        #expect {
            try store.migrate()
        } throws: { error in
            guard case .corrupt(let message) = error as? RecordsError else { return false }
            return message.contains("intent batch")
        }
        #expect(try store.schemaVersion() == 9)
        #expect(try raw.query("SELECT count(*) FROM intent_batches", []) { $0.int64(0) } == [3])
    }
}
