import TestSupport
import Testing

@testable import Records

/// Intents with fresh keys reach PostgreSQL by `COPY`; a key that was taken after all, or a field the
/// server refuses, sends the batch through the upsert, which decides as before.
@Suite(.blocking) struct PostgresCopyTests {
    /// The PostgreSQL kinds (through PgBouncer too), as the other store tests pick them.
    static var kinds: [StoreKind] { StoreKind.kinds.filter { $0 == .postgres || $0 == .pgbouncer } }

    /// COPY's binary format: the signature, then per row its field count and each field as its length
    /// (-1 for NULL) and bytes, bigints as 8 bytes, all big-endian, then a trailer of -1 (PostgreSQL docs,
    /// "COPY", "Binary Format"); nothing is escaped.
    @Test func binaryFormat() throws {
        var rows = PostgresCopyRows()
        try rows.append("ab")
        try rows.append(nil)
        try rows.append("")
        try rows.append("t\t\\N")
        rows.append(-42)
        rows.endRow()
        rows.append(0x0102_0304_0506_0708)
        rows.endRow()
        let signature: [UInt8] = [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00]
        var expected = signature + [0, 0, 0, 0] + [0, 0, 0, 0]
        expected += [0, 5]  // five fields
        expected += [0, 0, 0, 2] + Array("ab".utf8)
        expected += [0xFF, 0xFF, 0xFF, 0xFF]  // NULL
        expected += [0, 0, 0, 0]  // the empty string
        expected += [0, 0, 0, 4] + Array("t\t\\N".utf8)
        expected += [0, 0, 0, 8] + [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xD6]  // -42
        expected += [0, 1] + [0, 0, 0, 8] + [1, 2, 3, 4, 5, 6, 7, 8]
        expected += [0xFF, 0xFF]  // the trailer
        #expect(rows.bytes == expected)
        #expect(rows.rowCount == 2)
        #expect(throws: RecordsError.self) { try rows.append("a\u{0}b") }
    }

    /// A fresh intent.
    static func fresh(owner: String = "owner-\(Sample.uuid())", key: String = Sample.uuid()) -> UploadIntent {
        var intent = Sample.intent(owner: owner, key: key)
        intent.freshKey = true
        return intent
    }

    /// The store as the PostgreSQL store (its copy counter).
    static func postgres(_ test: TestStore) throws -> PostgresRecordStore {
        try #require(test.store as? PostgresRecordStore)
    }

    /// Bytes COPY's text format would have to escape, NULLs, an empty string and text beyond ASCII read
    /// back as they were sent.
    @Test(arguments: kinds) func freshIntentsAreCopiedByteForByte(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        var awkward = Self.fresh(owner: "o\tw\nn\re\\r \\N")
        awkward.objectKey = #"\N"#
        awkward.permanentKey = ""
        awkward.contentType = nil
        awkward.metadataJSON = "{\"caption\":\"a\\tb \\\\ c\",\"ko\":\"한국어 🙂\"}"
        let plain = Self.fresh()
        try test.store.putIntents([awkward, plain])
        #expect(try Self.postgres(test).copiedIntents == 2)
        #expect(try test.store.intent(imageKey: awkward.imageKey) == awkward)
        #expect(try test.store.intent(imageKey: plain.imageKey) == plain)
    }

    /// A "fresh" key that already has an intent (a UUID source that repeats): nothing is copied, the
    /// upsert stores the whole batch, the newest intent of the key wins.
    @Test(arguments: kinds) func aTakenFreshKeyFallsBackToTheUpsert(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let first = Sample.intent()
        try test.store.putIntents([first])
        let again = Self.fresh(owner: "someone-else", key: first.imageKey)
        let other = Self.fresh()
        try test.store.putIntents([other, again])
        #expect(try Self.postgres(test).copiedIntents == 0)
        #expect(try test.store.intent(imageKey: first.imageKey) == again)
        #expect(try test.store.intent(imageKey: other.imageKey) == other)
    }

    /// Fresh and other intents in one batch: the fresh ones copied, the others upserted in the same
    /// transaction (one whose key has a record is skipped, as always).
    @Test(arguments: kinds) func aMixedBatchCopiesTheFreshOnes(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let recorded = Sample.intent()
        _ = try test.store.insertRecords([Sample.record(owner: recorded.ownerId, key: recorded.imageKey)])
        let fresh = Self.fresh()
        let plain = Sample.intent()
        let committed = try Self.postgres(test).committedTransactions
        try test.store.putIntents([fresh, recorded, plain])
        #expect(try Self.postgres(test).copiedIntents == 1)
        #expect(try Self.postgres(test).committedTransactions == committed + 1)
        #expect(try test.store.intent(imageKey: fresh.imageKey) == fresh)
        #expect(try test.store.intent(imageKey: plain.imageKey) == plain)
        #expect(try test.store.intent(imageKey: recorded.imageKey) == nil)
    }

    /// A fresh intent PostgreSQL cannot hold (a NUL byte) is refused as bad, as the upsert refuses it,
    /// and nothing of its batch is stored (the writer then splits the batch).
    @Test(arguments: kinds) func aBadFreshIntentIsRefusedWithItsBatch(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        var bad = Self.fresh()
        bad.ownerId = "a\u{0}b"
        let good = Self.fresh()
        #expect {
            try test.store.putIntents([good, bad])
        } throws: { error in
            if case .constraint = error as? RecordsError { return true }
            return false
        }
        #expect(try Self.postgres(test).copiedIntents == 0)
        #expect(try test.store.intent(imageKey: good.imageKey) == nil)
        try test.store.putIntents([good])
        #expect(try test.store.intent(imageKey: good.imageKey) == good)
    }
}
