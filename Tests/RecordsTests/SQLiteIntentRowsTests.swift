import Crypto
import Foundation
import TestSupport
import Testing

@testable import Records

/// SQLite's intents as ordinary rows (schema version 10): what a person reads with `sqlite3`, the
/// primary key that keeps server-drawn keys in expiry order, the partial expiry index for the others,
/// the janitor's read of both, and the query plans that make each lookup one index search.
@Suite(.blocking) struct SQLiteIntentRowsTests {
    /// A migrated store on a fresh file, and a raw connection to the same file.
    static func store() throws -> (store: SQLiteRecordStore, raw: SQLiteConnection, directory: String) {
        let directory = NSTemporaryDirectory() + "intent-rows-\(UUID().uuidString)"
        let store = try SQLiteRecordStore(path: directory + "/records.db", readers: 2, busyTimeoutMs: 5000)
        try store.migrate()
        let raw = try SQLiteConnection(
            path: directory + "/records.db", create: false, readOnly: false, busyTimeoutMs: 5000)
        return (store, raw, directory)
    }

    /// An intent as the issue route makes one: a key holding a version-7 UUID whose time is the URL's
    /// expiry to the millisecond (`issuedAtMs + lifetimeMs`) and whose `rand_a` is `sequence`, its expiry
    /// that time rounded down to the second (`Issuer.keyUUID`).
    static func issued(
        issuedAtMs: Int64 = 1_765_000_000_123, lifetimeMs: Int64 = 600_000, sequence: Int = 0, owner: String = "user-1"
    ) throws -> UploadIntent {
        let uuid = try #require(
            UUIDv7.stamping(try UUIDv4.random(), millis: issuedAtMs + lifetimeMs, sequence: sequence))
        let key = "delete/profile/\(owner)/\(uuid)_\(issuedAtMs).jpg"
        return UploadIntent(
            ownerId: owner, imageKey: key, objectKey: key, permanentKey: "profile/\(owner)/origin/\(uuid).jpg",
            type: "PROFILE", contentType: nil, allowedContentTypes: ["image/jpeg", "image/png"], maxBytes: 10_485_760,
            createdAtMs: issuedAtMs, expiresAtMs: (issuedAtMs + lifetimeMs) / 1000 * 1000, freshKey: true)
    }

    @Test func intentsAreRowsAPersonCanRead() throws {
        let (store, raw, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try Self.issued()
        let client = Sample.intent(owner: "client-b")
        try store.putIntents([server, client])
        let rows = try raw.query(
            "SELECT key_order, image_key, owner_id, object_key, expires_at_ms FROM intents ORDER BY key_order", []
        ) { row in (row.int64(0), row.text(1), row.text(2), row.text(3), row.int64(4)) }
        #expect(rows.count == 2)
        // The client's random UUID key sorts first (order 0), the server's by its UUID's leading bits.
        #expect(rows[0].0 == 0 && rows[0].1 == client.imageKey && rows[0].2 == "client-b")
        #expect(rows[1].0 == UUIDv7.leadingBits(ofLastIn: server.imageKey))
        #expect(rows[1].1 == server.imageKey && rows[1].3 == server.objectKey && rows[1].4 == server.expiresAtMs)
        // The expiry index holds only the row that is not in expiry order.
        let indexed = try raw.query(
            "SELECT image_key FROM intents INDEXED BY intents_expiry WHERE NOT \(IntentKeyOrder.inKeyOrder) AND expires_at_ms > 0",
            []
        ) { $0.text(0) }
        #expect(indexed == [client.imageKey])
        #expect(try store.intent(imageKey: server.imageKey) == server)
        #expect(try store.intent(imageKey: client.imageKey) == client)
    }

    @Test func everyLookupIsOneIndexSearch() throws {
        let (_, raw, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func plan(_ sql: String, _ count: Int) throws -> String {
            let values = [SQLValue](repeating: .int(1), count: count)
            return try raw.query("EXPLAIN QUERY PLAN " + sql, values) { $0.text(3) }.joined(separator: " | ")
        }
        #expect(try plan(SQLiteQueries.intentByKey, 2).contains("USING PRIMARY KEY (key_order=? AND image_key=?)"))
        #expect(try plan(SQLiteQueries.deleteIntent, 2).contains("USING PRIMARY KEY (key_order=? AND image_key=?)"))
        #expect(try plan(SQLiteQueries.intentByObjectKey, 1).contains("USING INDEX intents_object_key (object_key=?)"))
        let inKeyOrder = try plan(SQLiteQueries.expiredInKeyOrder, 2)
        #expect(inKeyOrder.contains("SEARCH intents USING PRIMARY KEY (key_order>? AND key_order<?)"))
        #expect(!inKeyOrder.contains("TEMP B-TREE"), "read in the key's order, no sort")
        #expect(try plan(SQLiteQueries.expiredByExpiry, 2).contains("USING INDEX intents_expiry (expires_at_ms<?)"))
        let tidy = try plan(SQLiteQueries.expiredRecorded, 3)
        #expect(tidy.contains("INDEX intents_expiry (expires_at_ms<?)"), "\(tidy)")
        #expect(tidy.contains("USING PRIMARY KEY (key_order>? AND key_order<?)"), "\(tidy)")
        #expect(!tidy.contains("SCAN intents"), "\(tidy)")
    }

    @Test func theJanitorReadsBothKindsSoonestFirstAtTheBoundary() throws {
        let (store, _, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let t: Int64 = 1_765_000_000_000
        // Server keys of two lifetimes, issued out of expiry order, and client keys in between.
        let short = try Self.issued(issuedAtMs: t + 500, lifetimeMs: 60_000, sequence: 1)  // expires t + 60 s
        let long = try Self.issued(issuedAtMs: t, lifetimeMs: 600_000, sequence: 0)  // expires t + 600 s
        let shorter = try Self.issued(issuedAtMs: t + 999, lifetimeMs: 30_000, sequence: 2)  // expires t + 30 s
        var clientEarly = Sample.intent(owner: "client")
        clientEarly.expiresAtMs = t + 45_000
        var clientLate = Sample.intent(owner: "client")
        clientLate.expiresAtMs = t + 700_000
        try store.putIntents([long, short, clientLate, shorter, clientEarly])
        #expect(try store.expiredIntents(nowMs: t + 29_999, limit: 10).isEmpty)
        #expect(try store.expiredIntents(nowMs: t + 30_000, limit: 10) == [shorter], "at its expiry exactly")
        #expect(try store.expiredIntents(nowMs: t + 60_000, limit: 10) == [shorter, clientEarly, short])
        #expect(try store.expiredIntents(nowMs: t + 60_000, limit: 2) == [shorter, clientEarly])
        #expect(
            try store.expiredIntents(nowMs: t + 1_000_000, limit: 10) == [
                shorter, clientEarly, short, long, clientLate,
            ])
        try store.deleteIntents(imageKeys: [shorter.imageKey, clientEarly.imageKey])
        #expect(try store.expiredIntents(nowMs: t + 60_000, limit: 10) == [short])
        #expect(try store.intent(imageKey: shorter.imageKey) == nil)
        #expect(try store.expiredIntents(nowMs: -5, limit: 10).isEmpty)
    }

    @Test func expiredIntentsOfRecordedKeysAreDeletedUnexpiredOnesKept() throws {
        let (store, raw, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let t: Int64 = 1_765_000_000_000
        let expiredServer = try Self.issued(issuedAtMs: t, lifetimeMs: 60_000)
        let liveServer = try Self.issued(issuedAtMs: t, lifetimeMs: 600_000, sequence: 1)
        var expiredClient = Sample.intent()
        expiredClient.expiresAtMs = t + 60_000
        let unrecorded = try Self.issued(issuedAtMs: t + 1, lifetimeMs: 60_000, sequence: 2)
        try store.putIntents([expiredServer, liveServer, expiredClient, unrecorded])
        for intent in [expiredServer, liveServer, expiredClient] {
            _ = try store.insertRecords([Sample.record(owner: intent.ownerId, key: intent.imageKey)])
        }
        #expect(try store.expiredIntents(nowMs: t + 100_000, limit: 10) == [unrecorded])
        let left = try raw.query("SELECT image_key FROM intents ORDER BY image_key", []) { $0.text(0) }
        #expect(left == [liveServer.imageKey, unrecorded.imageKey].sorted())
    }

    @Test func keysAreBytesAndTheLastIntentOfAKeyWins() throws {
        let (store, _, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try Self.issued()
        let nfc = Sample.intent(owner: "nfc", key: "caf\u{00E9}.jpg")
        let nfd = Sample.intent(owner: "nfd", key: "cafe\u{0301}.jpg")
        let serverNFD = UploadIntent(
            ownerId: "server-nfd", imageKey: server.imageKey + "e\u{0301}", objectKey: server.objectKey,
            permanentKey: nil, type: "PROFILE", contentType: nil, allowedContentTypes: ["image/jpeg"], maxBytes: 1,
            createdAtMs: server.createdAtMs, expiresAtMs: server.expiresAtMs, freshKey: true)
        let serverNFC = UploadIntent(
            ownerId: "server-nfc", imageKey: server.imageKey + "\u{00E9}", objectKey: server.objectKey,
            permanentKey: nil, type: "PROFILE", contentType: nil, allowedContentTypes: ["image/jpeg"], maxBytes: 1,
            createdAtMs: server.createdAtMs, expiresAtMs: server.expiresAtMs, freshKey: true)
        try store.putIntents([nfc, nfd, serverNFC, serverNFD])
        #expect(try store.intent(imageKey: nfc.imageKey)?.ownerId == "nfc")
        #expect(try store.intent(imageKey: nfd.imageKey)?.ownerId == "nfd")
        #expect(try store.intent(imageKey: serverNFC.imageKey)?.ownerId == "server-nfc")
        #expect(try store.intent(imageKey: serverNFD.imageKey)?.ownerId == "server-nfd")
        // The same key twice in one batch, fresh or not: the later wins.
        let first = Sample.intent(owner: "first")
        var second = first
        second.ownerId = "second"
        var freshFirst = try Self.issued(owner: "fresh-first")
        var freshSecond = freshFirst
        freshSecond.ownerId = "fresh-second"
        try store.putIntents([first, freshFirst, second, freshSecond])
        #expect(try store.intent(imageKey: first.imageKey)?.ownerId == "second")
        #expect(try store.intent(imageKey: freshFirst.imageKey)?.ownerId == "fresh-second")
        // A "fresh" key that was taken after all (a UUID source that repeats) replaces the row unless the
        // key has a record.
        freshFirst.ownerId = "again"
        try store.putIntents([freshFirst])
        #expect(try store.intent(imageKey: freshFirst.imageKey)?.ownerId == "again")
        _ = try store.insertRecords([Sample.record(owner: "again", key: freshFirst.imageKey)])
        freshFirst.ownerId = "thief"
        try store.putIntents([freshFirst])
        #expect(try store.intent(imageKey: freshFirst.imageKey)?.ownerId == "again")
    }

    @Test func largeMixedBatchesAreStoredWholeInChunks() throws {
        let (store, raw, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fresh = try (0..<150).map { try Self.issued(issuedAtMs: 1_765_000_000_000 + Int64($0), sequence: $0) }
        let clients = (0..<70).map { _ in Sample.intent(owner: "client") }
        var batch: [UploadIntent] = []
        for index in 0..<150 {
            batch.append(fresh[index])
            if index < 70 { batch.append(clients[index]) }
        }
        try store.putIntents(batch)
        #expect(try raw.query("SELECT count(*) FROM intents", []) { $0.int64(0) }.first == 220)
        for intent in batch { #expect(try store.intent(imageKey: intent.imageKey) == intent) }
        // A bad allowed content type refuses the whole batch: nothing of it is stored.
        var bad = Sample.intent()
        bad.allowedContentTypes = ["image/jpeg\nimage/png"]
        let good = try Self.issued(sequence: 999)
        #expect(throws: RecordsError.self) { try store.putIntents([good, bad]) }
        #expect(try store.intent(imageKey: good.imageKey) == nil)
    }

    @Test func theUUIDsTheIssueRoutesDrawKeepTheirRowsOutOfTheExpiryIndex() throws {
        let (store, raw, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Issued at every millisecond of a second, with lifetimes of 30 s to 1 h.
        var intents: [UploadIntent] = []
        for (index, millisecond) in stride(from: 0, to: 1000, by: 7).enumerated() {
            let lifetime = Int64([30_000, 600_000, 3_600_000][index % 3])
            intents.append(try Self.issued(issuedAtMs: 1_765_000_000_000 + Int64(millisecond), lifetimeMs: lifetime))
        }
        try store.putIntents(intents)
        let indexed = try raw.query(
            "SELECT count(*) FROM intents INDEXED BY intents_expiry WHERE NOT \(IntentKeyOrder.inKeyOrder) AND expires_at_ms > 0",
            []
        ) { $0.int64(0) }
        #expect(indexed == [0])
        #expect(IntentKeyOrder.bound(expiredBy: 999) == 1000 << 16)
        #expect(IntentKeyOrder.bound(expiredBy: 1000) == 2000 << 16)
    }

    @Test func anotherStoreObjectOnTheFileFindsEachIntentAtOnce() throws {
        let (store, _, directory) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let other = try SQLiteRecordStore(path: directory + "/records.db", readers: 1, busyTimeoutMs: 5000)
        try other.migrate()
        for index in 0..<20 {
            let intent = index % 2 == 0 ? try Self.issued(sequence: index) : Sample.intent()
            try store.putIntents([intent])
            #expect(try other.intent(imageKey: intent.imageKey) == intent)
            try other.deleteIntents(imageKeys: [intent.imageKey])
            #expect(try store.intent(imageKey: intent.imageKey) == nil)
        }
    }
}
