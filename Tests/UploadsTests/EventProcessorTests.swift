import Records
import Testing
import UploadsTestSupport

@testable import Uploads

/// The event path's settling of inbox entries, over the in-memory store and storage at a fixed time.
@Suite("EventProcessor")
struct EventProcessorTests {
    /// A processor over `h`'s store and confirmer, for the bucket `uploads`.
    static func processor(_ h: LifecycleHarness) -> EventProcessor {
        EventProcessor(
            store: h.store, confirmer: h.confirmer, bucket: "uploads", intervalMs: 1000, recordDelayMs: 0,
            env: UploadEnvironment(nowMillis: { LifecycleHarness.now }, newUUID: { "token" }),
            events: { [events = h.events] in events.append($0) })
    }

    /// An RGW push (eventSource `ceph:s3`, its keys not encoded) of one created object.
    static func rgw(key: String, bucket: String = "uploads") -> [UInt8] {
        Array(
            (#"{"Records":[{"eventVersion":"2.2","eventSource":"ceph:s3","eventName":"ObjectCreated:Put","#
                + #""s3":{"bucket":{"name":"\#(bucket)"},"object":{"key":"\#(key)","size":4,"eTag":"e1"}}}]}"#)
                .utf8)
    }

    /// An inbox entry of `body` on its `attempts`-th attempt.
    static func entry(_ body: [UInt8], attempts: Int) -> InboxEvent {
        InboxEvent(
            id: 1, source: "rgw", body: body, receivedAtMs: LifecycleHarness.now, attempts: attempts, state: .pending)
    }

    /// An intent of type IMAGE for `key` (owner 7) stored in `h`, its upload in `h`'s storage.
    static func uploaded(_ h: LifecycleHarness, _ key: String) throws -> UploadIntent {
        let intent = UploadIntent(
            ownerId: "7", imageKey: key, objectKey: key, permanentKey: nil, type: "IMAGE", contentType: "image/jpeg",
            allowedContentTypes: ["image/jpeg"], maxBytes: 1000, createdAtMs: LifecycleHarness.now - 1000,
            expiresAtMs: LifecycleHarness.now + 600_000)
        try h.store.putIntents([intent])
        h.storage.put(key, bytes: LifecycleHarness.jpeg, contentType: "image/jpeg")
        return intent
    }

    @Test("an unknown key: retried on attempts 1 and 2, rejected `unknown-key` on the 3rd")
    func unknownKey() throws {
        let h = try LifecycleHarness()
        let p = Self.processor(h)
        let body = Self.rgw(key: "nobody-issued-this")
        for attempts in 1...2 {
            guard case .retry(let due, _) = p.settle(Self.entry(body, attempts: attempts)) else {
                Issue.record("attempt \(attempts) is not retried")
                continue
            }
            #expect(due == LifecycleHarness.now + (Int64(1000) << Int64(attempts - 1)), "1 s, then 2 s")
        }
        #expect(p.settle(Self.entry(body, attempts: 3)) == .rejected(reason: "unknown-key"))
        #expect(p.rejectedByReason == ["unknown-key": 1])
        #expect(p.retries.load(ordering: .relaxed) == 2)
        #expect(try h.store.record(imageKey: "nobody-issued-this") == nil)
    }

    @Test("a live intent's upload is recorded once; the same event again settles as recorded")
    func recordsThenSettles() throws {
        let h = try LifecycleHarness()
        let p = Self.processor(h)
        _ = try Self.uploaded(h, "k-event")
        #expect(p.settle(Self.entry(Self.rgw(key: "k-event"), attempts: 1)) == .done)
        let record = try #require(try h.store.record(imageKey: "k-event"))
        #expect(record.ownerId == "7")
        #expect(p.recordedCount.load(ordering: .relaxed) == 1)
        #expect(p.settle(Self.entry(Self.rgw(key: "k-event"), attempts: 1)) == .done)
        #expect(p.alreadyRecorded.load(ordering: .relaxed) == 1)
        #expect(try h.store.record(imageKey: "k-event")?.id == record.id, "still the one record")
    }

    @Test("a key its client confirmed first settles as recorded, without another record")
    func alreadyConfirmed() throws {
        let h = try LifecycleHarness()
        let p = Self.processor(h)
        _ = try Self.uploaded(h, "k-confirmed")
        let confirmed = try h.confirmer.confirm(Confirmation(imageKey: "k-confirmed"), owner: "7")
        #expect(confirmed.created)
        #expect(p.settle(Self.entry(Self.rgw(key: "k-confirmed"), attempts: 1)) == .done)
        #expect(p.alreadyRecorded.load(ordering: .relaxed) == 1)
        #expect(p.recordedCount.load(ordering: .relaxed) == 0)
        #expect(try h.store.record(imageKey: "k-confirmed")?.id == confirmed.record.id)
    }

    @Test("malformed: a record without its object is `malformed-record`, a body that is not JSON `malformed-delivery`")
    func malformed() throws {
        let h = try LifecycleHarness()
        let p = Self.processor(h)
        let noObject = Array(
            #"{"Records":[{"eventSource":"ceph:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"uploads"}}}]}"#
                .utf8)
        #expect(p.settle(Self.entry(noObject, attempts: 1)) == .rejected(reason: "malformed-record"))
        #expect(p.settle(Self.entry(Array("not json".utf8), attempts: 1)) == .rejected(reason: "malformed-delivery"))
        #expect(
            p.settle(Self.entry(Self.rgw(key: "k", bucket: "other"), attempts: 1)) == .rejected(reason: "wrong-bucket"))
        #expect(p.rejectedByReason == ["malformed-record": 1, "malformed-delivery": 1, "wrong-bucket": 1])
    }
}
