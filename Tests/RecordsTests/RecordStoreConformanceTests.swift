import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of `RecordStore`, run on every implementation: in memory, SQLite (a temporary file) and
/// PostgreSQL (a fresh schema on PRESIGN_TEST_POSTGRES_URL). Each test uses its own store, so they may
/// run in parallel.
@Suite(.blocking) struct RecordStoreConformanceTests {
    @Test(arguments: StoreKind.kinds)
    func migrationsAreIdempotentAndKeepData(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let record = Sample.record()
        _ = try test.store.insertRecords([record])
        try test.store.migrate()
        let again = try test.reopen()
        try again.migrate()
        try again.migrate()
        #expect(try again.record(imageKey: record.imageKey) == record)
        if let sqlite = again as? SQLiteRecordStore { #expect(try sqlite.schemaVersion() == Schema.latestVersion) }
        if let postgres = again as? PostgresRecordStore {
            #expect(try postgres.schemaVersion() == Schema.latestVersion)
        }
    }

    @Test(arguments: StoreKind.kinds)
    func pingAnswers(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        try test.store.ping()
    }

    @Test(arguments: StoreKind.kinds)
    func intentsRoundTripAndUpsertByKey(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let plain = Sample.intent(contentType: nil, allowed: [])
        let promoted = Sample.intent(permanentKey: "origin/x.jpg", allowed: ["image/jpeg", "image/heic", "image/webp"])
        try store.putIntents([plain, promoted])
        #expect(try store.intent(imageKey: plain.imageKey) == plain)
        #expect(try store.intent(imageKey: promoted.imageKey) == promoted)
        #expect(try store.intent(imageKey: Sample.uuid()) == nil)

        // A re-issued key replaces the unconfirmed intent, whoever it was issued to.
        var reissued = Sample.intent(owner: "another-owner", key: plain.imageKey, expiresAtMs: 2_100_000_000_000)
        reissued.maxBytes = 1
        try store.putIntents([reissued])
        #expect(try store.intent(imageKey: plain.imageKey) == reissued)

        // The same key twice in one batch: the later one wins.
        var first = Sample.intent()
        first.objectKey = "first"
        var second = first
        second.objectKey = "second"
        try store.putIntents([first, second])
        #expect(try store.intent(imageKey: first.imageKey)?.objectKey == "second")

        try store.putIntents([])
    }

    @Test(arguments: StoreKind.kinds)
    func intentOfARecordedKeyIsNotReplaced(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let intent = Sample.intent(owner: "alice")
        try store.putIntents([intent])
        _ = try store.insertRecords([Sample.record(owner: "alice", key: intent.imageKey)])
        try store.putIntents([Sample.intent(owner: "mallory", key: intent.imageKey)])
        #expect(try store.intent(imageKey: intent.imageKey) == intent)
    }

    @Test(arguments: StoreKind.kinds)
    func intentWithALineFeedInAContentTypeIsRefused(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let bad = Sample.intent(allowed: ["image/jpeg\nimage/png"])
        #expect {
            try store.putIntents([Sample.intent(), bad])
        } throws: { error in
            guard case .constraint = error as? RecordsError else { return false }
            return true
        }
        #expect(try store.intent(imageKey: bad.imageKey) == nil)
    }

    @Test(arguments: StoreKind.kinds)
    func expiredIntentsAreUnconfirmedOnesSoonestFirst(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let early = Sample.intent(expiresAtMs: 1_000)
        let onTheDot = Sample.intent(expiresAtMs: 2_000)
        let later = Sample.intent(expiresAtMs: 3_000)
        let confirmed = Sample.intent(expiresAtMs: 500)
        try store.putIntents([later, onTheDot, early, confirmed])
        _ = try store.insertRecords([Sample.record(owner: confirmed.ownerId, key: confirmed.imageKey)])

        #expect(try store.expiredIntents(nowMs: 2_000, limit: 10) == [early, onTheDot])
        #expect(try store.expiredIntents(nowMs: 2_000, limit: 1) == [early])
        #expect(try store.expiredIntents(nowMs: 999, limit: 10) == [])

        try store.deleteIntents(imageKeys: [early.imageKey, Sample.uuid()])
        #expect(try store.intent(imageKey: early.imageKey) == nil)
        #expect(try store.expiredIntents(nowMs: 10_000, limit: 10) == [onTheDot, later])
        try store.deleteIntents(imageKeys: [])
        #expect(throws: RecordsError.invalidArgument("batch limit 0 is below 1")) {
            try store.expiredIntents(nowMs: 10_000, limit: 0)
        }
    }

    @Test(arguments: StoreKind.kinds)
    func insertIsIdempotentByImageKey(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let record = Sample.record(owner: "alice")
        #expect(try store.insertRecords([record]) == [.inserted(record)])
        // The same record again (same id): a retry whose first attempt landed, so still .inserted.
        #expect(try store.insertRecords([record]) == [.inserted(record)])
        // The same owner confirming again makes a new record (a new id): it gets the stored one, .existing.
        let again = Sample.record(owner: "alice", key: record.imageKey)
        #expect(try store.insertRecords([again]) == [.existing(record)])
        // Another owner (or another id) with the same key gets the stored record: the caller answers 409.
        let rival = Sample.record(owner: "mallory", key: record.imageKey)
        #expect(try store.insertRecords([rival]) == [.existing(record)])
        #expect(try store.record(imageKey: record.imageKey) == record)
        #expect(try store.record(id: rival.id, ownerId: "mallory") == nil)
        #expect(try store.insertRecords([]) == [])
    }

    @Test(arguments: StoreKind.kinds)
    func duplicateKeyWithinOneBatchGivesExistingOfTheFirst(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let a = Sample.record()
        let b = Sample.record()
        let aAgain = Sample.record(key: a.imageKey)
        #expect(try store.insertRecords([a, b, aAgain]) == [.inserted(a), .inserted(b), .existing(a)])
    }

    @Test(arguments: StoreKind.kinds)
    func duplicateIdFailsTheWholeBatch(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let stored = Sample.record()
        _ = try store.insertRecords([stored])
        let innocent = Sample.record()
        let clash = Sample.record(id: stored.id)
        #expect {
            try store.insertRecords([innocent, clash])
        } throws: { error in
            guard case .constraint = error as? RecordsError else { return false }
            return true
        }
        #expect(try store.record(imageKey: innocent.imageKey) == nil)
        #expect(try store.record(imageKey: stored.imageKey) == stored)
    }

    @Test(arguments: StoreKind.kinds)
    func listIsNewestFirstAcrossPagesWithTypeFilter(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let owner = "owner-\(Sample.uuid())"
        // Two pairs share a creation time, so the id breaks the tie.
        let specs: [(ms: Int64, id: String, type: String)] = [
            (1_000, "00000000-0000-4000-8000-000000000001", "PROFILE"),
            (3_000, "00000000-0000-4000-8000-000000000002", "POST"),
            (3_000, "00000000-0000-4000-8000-000000000003", "PROFILE"),
            (2_000, "00000000-0000-4000-8000-000000000004", "POST"),
            (5_000, "00000000-0000-4000-8000-000000000005", "PROFILE"),
            (5_000, "00000000-0000-4000-8000-00000000000a", "PROFILE"),
            (4_000, "00000000-0000-4000-8000-000000000007", "POST"),
        ]
        let suffix = Sample.uuid()
        let records = specs.map {
            Sample.record(
                owner: owner, id: String(suffix.prefix(24)) + $0.id.suffix(12), type: $0.type, createdAtMs: $0.ms)
        }
        _ = try store.insertRecords(records)
        _ = try store.insertRecords([Sample.record(owner: "someone-else", createdAtMs: 4_500)])
        let newestFirst = records.sorted { ($0.createdAtMs, $0.id) > ($1.createdAtMs, $1.id) }

        for (type, pageSize) in [(nil, 3), (nil, 1), (nil, 7), (nil, 100), ("PROFILE", 2), ("POST", 2), ("NONE", 5)] {
            var seen: [ImageRecord] = []
            var cursor: RecordCursor?
            var pages = 0
            repeat {
                let page = try store.listRecords(ownerId: owner, type: type, limit: pageSize, after: cursor)
                #expect(page.records.count <= pageSize)
                seen += page.records
                // The client only ever holds the token.
                cursor = try page.next.map { try #require(RecordCursor(token: $0.token)) }
                pages += 1
            } while cursor != nil && pages < 20
            let expected = newestFirst.filter { type == nil || $0.type == type }
            #expect(seen == expected, "type \(type ?? "any"), page size \(pageSize)")
            #expect(pages == max(1, (expected.count + pageSize - 1) / pageSize))
        }
    }

    @Test(arguments: StoreKind.kinds)
    func listLimitBounds(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let owner = "owner-\(Sample.uuid())"
        _ = try store.insertRecords([
            Sample.record(owner: owner, createdAtMs: 1), Sample.record(owner: owner, createdAtMs: 2),
        ])
        for bad in [0, -1, RecordStoreLimits.maxListLimit + 1, Int.max] {
            #expect(throws: RecordsError.self) {
                try store.listRecords(ownerId: owner, type: nil, limit: bad, after: nil)
            }
        }
        let one = try store.listRecords(ownerId: owner, type: nil, limit: 1, after: nil)
        #expect(one.records.count == 1 && one.records[0].createdAtMs == 2 && one.next != nil)
        let exact = try store.listRecords(ownerId: owner, type: nil, limit: 2, after: nil)
        #expect(exact.records.count == 2 && exact.next == nil)
        let most = try store.listRecords(ownerId: owner, type: nil, limit: RecordStoreLimits.maxListLimit, after: nil)
        #expect(most.records.count == 2 && most.next == nil)
        let none = try store.listRecords(ownerId: "nobody-\(Sample.uuid())", type: nil, limit: 10, after: nil)
        #expect(none.records.isEmpty && none.next == nil)
    }

    @Test(arguments: StoreKind.kinds)
    func onlyTheOwnerReadsAndDeletes(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let record = Sample.record(owner: "alice-\(Sample.uuid())")
        _ = try store.insertRecords([record])
        #expect(try store.record(id: record.id, ownerId: "mallory") == nil)
        #expect(try store.deleteRecord(id: record.id, ownerId: "mallory") == nil)
        #expect(try store.record(id: record.id, ownerId: record.ownerId) == record)
        #expect(try store.listRecords(ownerId: "mallory", type: nil, limit: 10, after: nil).records.isEmpty)

        #expect(try store.deleteRecord(id: record.id, ownerId: record.ownerId) == record)
        #expect(try store.record(id: record.id, ownerId: record.ownerId) == nil)
        #expect(try store.record(imageKey: record.imageKey) == nil)
        #expect(try store.deleteRecord(id: record.id, ownerId: record.ownerId) == nil)
        // A deleted key can be confirmed again.
        #expect(try store.insertRecords([record]) == [.inserted(record)])
    }

    /// Metadata must come back byte for byte: Swift's `==` on strings ignores Unicode normalisation, so
    /// compare the UTF-8 bytes.
    @Test(arguments: StoreKind.kinds)
    func metadataRoundTripsByteExact(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let vectors: [String] = [
            #"{}"#,
            #"{"caption":"한글 캡션 ✓","emoji":"😀👩‍👩‍👧","rtl":"שלום"}"#,
            "{\"nfd\":\"e\u{301}\",\"nfc\":\"\u{e9}\"}",  // the same text under normalisation, different bytes
            #"{"escaped":"\u0000\n\t\"\\","number":1.50e+10,"z":null,"a":[ ]}"#,
            "{\n  \"pretty\" : true ,\r\n  \"tabs\":\t1\n}",
            #"{"big":""# + String(repeating: "Ω≈ç√", count: 1_400) + #""}"#,
        ]
        for metadata in vectors {
            let record = Sample.record(metadata: metadata)
            _ = try store.insertRecords([record])
            let read = try #require(try store.record(id: record.id, ownerId: record.ownerId))
            #expect(Array(read.metadataJSON.utf8) == Array(metadata.utf8))
            let listed = try store.listRecords(ownerId: record.ownerId, type: nil, limit: 1, after: nil).records
            #expect(listed.map { Array($0.metadataJSON.utf8) } == [Array(metadata.utf8)])
        }
    }
}
