import TestSupport
import Testing

@testable import Records

/// `RecordStore.records(ids:ownerId:)` on every store: the owner's records among the ids, nothing of
/// another owner's, nothing for ids without a record or deleted, in one call of up to the limit.
@Suite(.blocking) struct RecordsByIdsConformanceTests {
    @Test(arguments: StoreKind.kinds)
    func findsTheOwnersRecordsAmongTheIds(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let mine = (0..<5).map { _ in Sample.record(owner: "alice") }
        let theirs = Sample.record(owner: "mallory")
        _ = try store.insertRecords(mine + [theirs])
        _ = try store.deleteRecord(id: mine[4].id, ownerId: "alice")

        let asked = [mine[2].id, theirs.id, Sample.uuid(), mine[0].id, mine[4].id, "not-a-uuid", mine[1].id]
        let found = try store.records(ids: asked, ownerId: "alice")
        #expect(found.count == 3)
        #expect(Set(found.map(\.id)) == Set([mine[0].id, mine[1].id, mine[2].id]))
        for record in found { #expect(record == mine.first { $0.id == record.id }) }

        #expect(try store.records(ids: [theirs.id], ownerId: "alice").isEmpty)
        #expect(try store.records(ids: [theirs.id], ownerId: "mallory") == [theirs])
        #expect(try store.records(ids: [], ownerId: "alice").isEmpty)
        // Ids with quotes, braces, commas and backslashes are values, not syntax.
        #expect(
            try store.records(ids: [#"a",b"#, "{x}", #"\"#, "'; DROP TABLE records; --"], ownerId: "alice").isEmpty)
        #expect(try store.record(id: mine[0].id, ownerId: "alice") == mine[0])
    }

    @Test(arguments: StoreKind.kinds)
    func readsAHundredInOneCallAndRefusesOverTheLimit(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.store
        let records = (0..<100).map { _ in Sample.record(owner: "bob") }
        _ = try store.insertRecords(records)
        let found = try store.records(ids: records.map(\.id), ownerId: "bob")
        #expect(Set(found.map(\.id)) == Set(records.map(\.id)))
        let tooMany = (0...RecordStoreLimits.maxIdsPerRead).map { _ in Sample.uuid() }
        #expect(throws: RecordsError.self) { try store.records(ids: tooMany, ownerId: "bob") }
    }
}
