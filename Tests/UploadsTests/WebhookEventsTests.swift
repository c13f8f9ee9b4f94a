import Config
import JSON
import ObjectStore
import Records
import Testing
import UploadsTestSupport

@testable import Uploads

/// The lifecycle's webhook events: their bodies and ids, each written with the change it reports (a
/// record made, a slot filled, a record deleted, an object refused, an intent expired), once.
@Suite struct WebhookEventsTests {
    static let keyA = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
    static let keyB = "1c8f7b68-3d2c-4d3f-8e7a-2a3f4e5d6c7b"
    static let hook = [WebhookEndpointConfig(name: "hook", url: "http://127.0.0.1:9/h")]

    /// Every delivery in the outbox for `endpoint`, oldest first.
    static func outbox(_ h: LifecycleHarness, endpoint: String = "hook") throws -> [WebhookDelivery] {
        try h.store.webhookDeliveries(state: .pending, limit: 1000, afterSeq: nil).filter { $0.endpoint == endpoint }
    }

    /// The body of `delivery`, parsed.
    static func body(_ delivery: WebhookDelivery) throws -> JSONValue { try JSONValue(parsing: delivery.body) }

    @Test func aRecordMadeIsOneUploadCompletedWithTheRecordAndItsOwner() throws {
        let h = try LifecycleHarness(webhooks: Self.hook)
        try ConfirmerTests.issue(h, Self.keyA, owner: "7")
        let first = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        _ = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        let events = try Self.outbox(h)
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.type == "upload.completed" && e.subject == Self.keyA)
        #expect(e.eventId == WebhookEvents.derivedId(.completed, at: first.record.createdAtMs, first.record.id))
        let body = try Self.body(e)
        #expect(body["type"]?.stringValue == "upload.completed")
        #expect(body["timestamp"]?.stringValue == "2026-11-29T14:07:07.768Z")
        #expect(body["data"]?["id"]?.stringValue == first.record.id)
        #expect(body["data"]?["imageKey"]?.stringValue == Self.keyA)
        #expect(body["data"]?["ownerId"]?.stringValue == "7")
        #expect(body["data"]?["url"] == nil)
    }

    @Test func noEndpointOrNoEndpointWantingATypeWritesNothing() throws {
        let off = try LifecycleHarness()
        try ConfirmerTests.issue(off, Self.keyA)
        _ = try off.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(try off.store.webhookOutboxStats().pending == 0)
        let deletesOnly = try LifecycleHarness(webhooks: [
            WebhookEndpointConfig(name: "d", url: "http://127.0.0.1:9/", events: ["upload.deleted"])
        ])
        try ConfirmerTests.issue(deletesOnly, Self.keyA)
        _ = try deletesOnly.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        #expect(try deletesOnly.store.webhookOutboxStats().pending == 0)
    }

    @Test func aSlotFilledAgainIsReplacedWithThePreviousRecordDeleted() throws {
        let h = try LifecycleHarness(webhooks: Self.hook)
        try ConfirmerTests.issue(h, Self.keyA)
        try ConfirmerTests.issue(h, Self.keyB)
        let slot = Slot(name: "profile", deletePrevious: true)
        let a = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7", into: slot)
        let b = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7", into: slot)
        // A repeat changes nothing and emits nothing.
        _ = try h.confirmer.confirm(Confirmation(imageKey: Self.keyB), owner: "7", into: slot)
        let events = try Self.outbox(h)
        #expect(
            events.map(\.type) == [
                "upload.completed", "upload.replaced", "upload.completed", "upload.replaced", "upload.deleted",
            ])
        let replaced = try Self.body(events[3])
        #expect(replaced["data"]?["id"]?.stringValue == b.record.id)
        #expect(replaced["data"]?["slot"]?.stringValue == "profile")
        #expect(replaced["data"]?["previousId"]?.stringValue == a.record.id)
        #expect(try Self.body(events[1])["data"]?["previousId"]?.isNull == true)
        #expect(
            events[4].subject == Self.keyA
                && events[4].eventId == WebhookEvents.derivedId(.deleted, at: a.record.createdAtMs, a.record.id))
    }

    @Test func aRefusedObjectIsOneUploadRejectedWrittenBeforeItIsDeleted() throws {
        let h = try LifecycleHarness(webhooks: Self.hook)
        try ConfirmerTests.issue(h, Self.keyA)
        h.storage.put(Self.keyA, bytes: Array("<html>not an image</html>".utf8), contentType: nil)
        #expect(throws: UploadError.self) { try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7") }
        #expect(!h.storage.keys.contains(Self.keyA))
        // The same object again (a crash came between the event and the delete): the same event id.
        h.storage.put(Self.keyA, bytes: Array("<html>not an image</html>".utf8), contentType: nil)
        #expect(throws: UploadError.self) { try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7") }
        let events = try Self.outbox(h)
        #expect(events.count == 1)
        let body = try Self.body(try #require(events.first))
        #expect(body["type"]?.stringValue == "upload.rejected")
        #expect(body["data"]?["reason"]?.stringValue == "CONTENT_MISMATCH")
        #expect(body["data"]?["imageKey"]?.stringValue == Self.keyA)
        #expect(body["data"]?["ownerId"]?.stringValue == "7" && body["data"]?["type"]?.stringValue == "IMAGE")
        #expect(body["data"]?["size"]?.intValue == 25)
        // Another object (another ETag) refused for another reason is another event.
        h.storage.put(Self.keyA, bytes: Array(repeating: 1, count: 2000), contentType: "image/jpeg", etag: "e2")
        #expect(throws: UploadError.self) { try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7") }
        let reasons = try Self.outbox(h).map { try Self.body($0)["data"]?["reason"]?.stringValue }
        #expect(reasons == ["CONTENT_MISMATCH", "IMAGE_TOO_LARGE"])
    }

    @Test func theOutboxFailingLeavesTheObjectForTheNextConfirmation() throws {
        let h = try LifecycleHarness(webhooks: Self.hook)
        try ConfirmerTests.issue(h, Self.keyA)
        h.storage.put(Self.keyA, bytes: Array("<html>x</html>".utf8), contentType: nil)
        h.storage.failDeletes(with: .connection("refused"))
        #expect(throws: UploadError.storage(.connection("refused"))) {
            try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        }
        // The event is there (written first); the object too, for the next confirmation to refuse again.
        #expect(try Self.outbox(h).map(\.type) == ["upload.rejected"])
        #expect(h.storage.keys.contains(Self.keyA))
    }

    @Test func anIntentTheJanitorRemovesIsOneUploadExpired() throws {
        let h = try LifecycleHarness(webhooks: Self.hook)
        let intent = UploadIntent(
            ownerId: "9", imageKey: Self.keyB, objectKey: Self.keyB, permanentKey: nil, type: "IMAGE",
            contentType: "image/jpeg", allowedContentTypes: ["image/jpeg"], maxBytes: 10,
            createdAtMs: LifecycleHarness.now - 4_000_000, expiresAtMs: LifecycleHarness.now - 3_600_000)
        try h.store.putIntents([intent])
        h.storage.put(Self.keyB, bytes: [1], contentType: "image/jpeg")
        let janitor = Janitor(
            store: h.store, storage: h.storage, deleteObjects: true, batchSize: 10, intervalMs: 1000, env: h.env,
            events: { _ in }, graceMs: 0, webhooks: h.webhooks)
        #expect(janitor.sweep() == 1)
        #expect(janitor.sweep() == 0)
        let events = try Self.outbox(h)
        #expect(events.map(\.type) == ["upload.expired"])
        let data = try Self.body(events[0])["data"]
        #expect(data?["imageKey"]?.stringValue == Self.keyB && data?["ownerId"]?.stringValue == "9")
        #expect(data?["type"]?.stringValue == "IMAGE" && data?["objectDeleted"]?.boolValue == true)
        #expect(
            events[0].eventId
                == WebhookEvents.derivedId(.expired, at: intent.expiresAtMs, Self.keyB, String(intent.createdAtMs)))
    }

    @Test func aRecordRemovedIsOneUploadDeleted() throws {
        let h = try LifecycleHarness(webhooks: Self.hook)
        try ConfirmerTests.issue(h, Self.keyA)
        let made = try h.confirmer.confirm(Confirmation(imageKey: Self.keyA), owner: "7")
        let records = UploadRecords(
            store: h.store, storage: h.storage, readSigner: h.issuer.signers.configured, bucket: "uploads",
            readUrlExpires: 60, cdnBaseUrl: nil, env: h.env, webhooks: h.webhooks)
        try records.remove(id: made.record.id, owner: "7")
        #expect(throws: UploadError.recordNotFound) { try records.remove(id: made.record.id, owner: "7") }
        #expect(try Self.outbox(h).map(\.type) == ["upload.completed", "upload.deleted"])
    }

    @Test func derivedIdsAreStableVersion8UUIDsThatSortByTheirTime() {
        let id = WebhookEvents.derivedId(.completed, at: 1_764_425_227_768, "a")
        #expect(id == WebhookEvents.derivedId(.completed, at: 1_764_425_227_768, "a"))
        #expect(id != WebhookEvents.derivedId(.completed, at: 1_764_425_227_768, "b"))
        #expect(id != WebhookEvents.derivedId(.deleted, at: 1_764_425_227_768, "a"))
        let chars = Array(id)
        #expect(chars.count == 36 && chars[8] == "-" && chars[13] == "-" && chars[18] == "-" && chars[23] == "-")
        #expect(chars[14] == "8" && "89ab".contains(chars[19]))
        #expect(String(chars[0..<8]) + String(chars[9..<13]) == String(1_764_425_227_768, radix: 16).leftPadded(to: 12))
        #expect(id.allSatisfy { "0123456789abcdef-".contains($0) })
        // Later happenings sort later whatever they are about (the outbox's unique index appends them).
        var previous = ""
        for (offset, part) in ["z", "y", "x", "w"].enumerated() {
            let next = WebhookEvents.derivedId(.completed, at: 1_764_425_227_768 + Int64(offset), part)
            #expect(next > previous)
            previous = next
        }
    }
}

extension String {
    /// The text with zeros before it up to `count` characters.
    fileprivate func leftPadded(to count: Int) -> String {
        String(repeating: "0", count: max(0, count - self.count)) + self
    }
}
