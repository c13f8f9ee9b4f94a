import Foundation
import TestSupport
import Testing

@testable import Records

/// `fillSlot` and the pending object deletions (schema version 4), on every store.
@Suite(.blocking) struct RecordStoreSlotTests {
    @Test(arguments: StoreKind.kinds)
    func fillReplaceRepeatAndRefuse(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let owner = "owner-\(Sample.uuid())"
        let first = Sample.record(owner: owner)
        let second = Sample.record(owner: owner)

        // An empty slot is filled; the record is stored.
        #expect(
            try store.fillSlot(first, slot: "profile", deletePrevious: true, nowMs: 1)
                == .filled(first, previous: nil, objectToDelete: nil))
        #expect(try store.record(imageKey: first.imageKey) == first)
        #expect(try store.slotRecord(ownerId: owner, slot: "profile") == first)

        // The same record again: unchanged (a fresh record value with the same key finds the stored one).
        var retry = first
        retry.id = Sample.uuid()
        #expect(try store.fillSlot(retry, slot: "profile", deletePrevious: true, nowMs: 2) == .unchanged(first))

        // A new record replaces it: the old record is gone and its object queued for deletion.
        #expect(
            try store.fillSlot(second, slot: "profile", deletePrevious: true, nowMs: 3)
                == .filled(second, previous: first, objectToDelete: first.objectKey))
        #expect(try store.record(imageKey: first.imageKey) == nil)
        #expect(try store.slotRecord(ownerId: owner, slot: "profile") == second)
        #expect(try store.pendingObjectDeletions(limit: 10) == [first.objectKey])
        // An object recorded again (its key issued and uploaded anew) is taken out of the queue.
        var again = Sample.record(owner: owner)
        again.objectKey = first.objectKey
        _ = try store.fillSlot(again, slot: "other", deletePrevious: true, nowMs: 4)
        #expect(try store.pendingObjectDeletions(limit: 10) == [])
        _ = try store.deleteRecord(id: again.id, ownerId: owner)
        #expect(try store.pendingObjectDeletions(limit: 10) == [])

        // Slots are per owner and per name.
        let other = Sample.record()
        #expect(
            try store.fillSlot(other, slot: "profile", deletePrevious: true, nowMs: 4)
                == .filled(other, previous: nil, objectToDelete: nil))
        #expect(try store.slotRecord(ownerId: owner, slot: "profile") == second)
        #expect(try store.slotRecord(ownerId: owner, slot: "quest:1") == nil)

        // Another owner's key, and this owner's record of another slot: refused, nothing changes.
        var foreign = other
        foreign.ownerId = owner
        foreign.id = Sample.uuid()
        #expect(
            try store.fillSlot(foreign, slot: "profile", deletePrevious: true, nowMs: 5)
                == .recordedByAnotherUser(other))
        let quest = Sample.record(owner: owner)
        _ = try store.fillSlot(quest, slot: "quest:1", deletePrevious: true, nowMs: 6)
        #expect(
            try store.fillSlot(quest, slot: "profile", deletePrevious: true, nowMs: 7)
                == .inAnotherSlot(quest, slot: "quest:1"))
        #expect(try store.slotRecord(ownerId: owner, slot: "profile") == second)

        // A record confirmed outside any slot moves in; without deletePrevious the old record stays.
        let loose = Sample.record(owner: owner)
        _ = try store.insertRecords([loose])
        #expect(
            try store.fillSlot(loose, slot: "profile", deletePrevious: false, nowMs: 8)
                == .filled(loose, previous: second, objectToDelete: nil))
        #expect(try store.record(imageKey: second.imageKey) == second)
        #expect(try store.pendingObjectDeletions(limit: 10) == [])

        // A slot whose record was deleted since reads as empty and fills again.
        _ = try store.deleteRecord(id: loose.id, ownerId: owner)
        #expect(try store.slotRecord(ownerId: owner, slot: "profile") == nil)
        let last = Sample.record(owner: owner)
        #expect(
            try store.fillSlot(last, slot: "profile", deletePrevious: true, nowMs: 9)
                == .filled(last, previous: nil, objectToDelete: nil))
    }

    @Test(arguments: StoreKind.kinds)
    func pendingDeletionsAreOldestFirstAndBounded(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let owner = "owner-\(Sample.uuid())"
        var keys: [String] = []
        var previous = Sample.record(owner: owner)
        _ = try store.fillSlot(previous, slot: "s", deletePrevious: true, nowMs: 0)
        for n in 1...3 {
            let next = Sample.record(owner: owner)
            _ = try store.fillSlot(next, slot: "s", deletePrevious: true, nowMs: Int64(n))
            keys.append(previous.objectKey)
            previous = next
        }
        #expect(try store.pendingObjectDeletions(limit: 10) == keys)
        #expect(try store.pendingObjectDeletions(limit: 2) == Array(keys.prefix(2)))
        #expect(throws: RecordsError.self) { try store.pendingObjectDeletions(limit: 0) }
        try store.finishObjectDeletions([keys[0], "never-queued"])
        #expect(try store.pendingObjectDeletions(limit: 10) == Array(keys.dropFirst()))
    }

    @Test(arguments: StoreKind.kinds)
    func concurrentReplacementsKeepOneRecord(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let owner = "owner-\(Sample.uuid())"
        let records = (0..<8).map { _ in Sample.record(owner: owner) }
        runConcurrently(records.count) { i in
            _ = try? store.fillSlot(records[i], slot: "p", deletePrevious: true, nowMs: 1)
        }
        let current = try #require(try store.slotRecord(ownerId: owner, slot: "p"))
        // Exactly one of the records is left; the other seven objects are queued for deletion.
        let left = try records.filter { try store.record(imageKey: $0.imageKey) != nil }
        #expect(left == [current])
        #expect(
            Set(try store.pendingObjectDeletions(limit: 100)) == Set(records.filter { $0 != current }.map(\.objectKey)))
    }
}

/// Migrations are applied by version, not by "above the highest": a store with a later version
/// applied still gets an earlier one merged since.
@Suite(.blocking) struct SchemaGapTests {
    @Test func missingMigrationsIgnoreOrder() {
        let all = Set(Schema.migrations.map(\.version))
        #expect(Schema.missingMigrations(applied: all).isEmpty)
        #expect(Schema.missingMigrations(applied: []).map(\.version) == Schema.migrations.map(\.version))
        let withoutFirst = all.subtracting([Schema.migrations[0].version])
        #expect(Schema.missingMigrations(applied: withoutFirst).map(\.version) == [Schema.migrations[0].version])
        #expect(Schema.latestVersion == Schema.migrations.map(\.version).max())
        #expect(Schema.migrations.contains { $0.version == 4 })
    }

    @Test func aVersionMissingBelowTheHighestIsAppliedOnSQLite() throws {
        let directory = NSTemporaryDirectory() + "records-gap-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/records.db"
        try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000).migrate()
        // As if version 4 had been merged after the later ones were applied here: all but 4 applied.
        let writer = try SQLiteConnection(path: path, create: false, readOnly: false, busyTimeoutMs: 1000)
        try writer.execute("DROP TABLE record_slots")
        try writer.execute("DROP TABLE object_deletions")
        try writer.execute("DELETE FROM schema_version WHERE version = 4")
        let store = try SQLiteRecordStore(path: path, readers: 1, busyTimeoutMs: 1000)
        try store.migrate()
        let versions = try writer.query("SELECT version FROM schema_version ORDER BY version", []) { $0.int64(0) }
        #expect(versions == Schema.migrations.map { Int64($0.version) }.sorted())
        let tables = try writer.query(
            "SELECT name FROM sqlite_master WHERE name IN ('record_slots', 'object_deletions') ORDER BY name", []
        ) { $0.text(0) }
        #expect(tables == ["object_deletions", "record_slots"])
    }
}
