import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of `IntentLocator` (schema version 9), on every store: an intent is found by the object
/// key its URL writes, whether that is its image key (client P) or not (a multipart upload's
/// `key#uploadId`, a templated client key); re-issues, removals and reopening keep the answer right.
@Suite(.blocking) struct IntentLocatorConformanceTests {
    /// An intent of `imageKey` writing `objectKey`, created at `createdAtMs`.
    static func intent(_ imageKey: String, writes objectKey: String, createdAtMs: Int64 = 1_700_000_000_000)
        -> UploadIntent
    {
        var intent = Sample.intent(key: imageKey)
        intent.objectKey = objectKey
        intent.createdAtMs = createdAtMs
        return intent
    }

    /// The store under test as a locator.
    static func locator(_ store: any RecordStore) -> any RecordStore & IntentLocator {
        store as! any RecordStore & IntentLocator
    }

    @Test(arguments: StoreKind.kinds)
    func findsIntentsByTheObjectTheyWrite(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = Self.locator(test.store)
        let own = "delete/profile/7/\(Sample.uuid()).jpg"
        let object = "uploads/\(Sample.uuid()).bin"
        let pair = object + "#upload-\(Sample.uuid())"
        let keyed = Sample.uuid()
        let keyedObject = "quests/7/\(keyed).jpg"
        try store.putIntents([
            Self.intent(own, writes: own), Self.intent(pair, writes: object), Self.intent(keyed, writes: keyedObject),
        ])
        #expect(try store.intent(objectKey: own)?.imageKey == own)
        #expect(try store.intent(objectKey: object)?.imageKey == pair)
        #expect(try store.intent(objectKey: keyedObject)?.imageKey == keyed)
        #expect(try store.intent(objectKey: "uploads/none.bin") == nil)
        // An image key is no object key of its own when its intent writes another object.
        #expect(try store.intent(objectKey: pair) == nil)
        #expect(try store.intent(objectKey: keyed) == nil)
        // Keys are bytes: the NFD spelling of an NFC key is another key.
        let nfc = "uploads/caf\u{E9}.bin"
        try store.putIntents([Self.intent(Sample.uuid(), writes: nfc)])
        #expect(try store.intent(objectKey: nfc) != nil)
        #expect(try store.intent(objectKey: "uploads/cafe\u{301}.bin") == nil)

        // Another store object on the same file or database finds them too (SQLite: its index is rebuilt).
        let again = Self.locator(try test.reopen())
        #expect(try again.intent(objectKey: object)?.imageKey == pair)
        #expect(try again.intent(objectKey: own)?.imageKey == own)
    }

    @Test(arguments: StoreKind.kinds)
    func reissuesRemovalsAndTheNewestIntent(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = Self.locator(test.store)
        let object = "uploads/\(Sample.uuid()).bin"
        let first = object + "#1"
        let second = object + "#2"
        try store.putIntents([Self.intent(first, writes: object, createdAtMs: 1_000)])
        try store.putIntents([Self.intent(second, writes: object, createdAtMs: 2_000)])
        #expect(try store.intent(objectKey: object)?.imageKey == second, "the newest intent naming the object")
        // A re-issue of the newest image key that writes elsewhere: the object is the older intent's.
        let elsewhere = "uploads/\(Sample.uuid()).bin"
        try store.putIntents([Self.intent(second, writes: elsewhere, createdAtMs: 3_000)])
        #expect(try store.intent(objectKey: elsewhere)?.imageKey == second)
        let left = try store.intent(objectKey: object)?.imageKey
        #expect(
            left == first || left == nil, "never the re-issued intent, which writes another object: \(left ?? "nil")")
        try store.deleteIntents(imageKeys: [first, second])
        #expect(try store.intent(objectKey: object) == nil)
        #expect(try store.intent(objectKey: elsewhere) == nil)
        #expect(try Self.locator(try test.reopen()).intent(objectKey: elsewhere) == nil)
    }

    @Test(arguments: StoreKind.kinds)
    func theJanitorsRemovalForgetsTheObjectKey(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = Self.locator(test.store)
        let object = "uploads/\(Sample.uuid()).bin"
        var expired = Self.intent(object + "#x", writes: object)
        expired.expiresAtMs = 5_000
        try store.putIntents([expired])
        #expect(try store.expiredIntents(nowMs: 10_000, limit: 10).map(\.imageKey) == [expired.imageKey])
        try store.deleteIntents(imageKeys: [expired.imageKey])
        #expect(try store.intent(objectKey: object) == nil)
    }
}
