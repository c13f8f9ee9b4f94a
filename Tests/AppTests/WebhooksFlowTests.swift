import AppTestSupport
import Crypto
import Foundation
import JSON
import Records
import Synchronization
import TestSupport
import Testing

/// Outbound webhooks end to end (issue 38): the application in process, a real RGW, each records backend,
/// and a real receiver on loopback (`WebhookReceiver`) that checks every signature as Standard Webhooks
/// says and counts deliveries by `webhook-id`; what it received is then checked with the reference
/// library (`standardwebhooks` from PyPI). The process-boundary proofs (kill -9, three instances) are in
/// WebhooksBinaryTests and WebhooksInstancesTests.
@Suite("Webhooks: every confirming path, retries, outages, operators", .serialized, .onDispatchThreads)
struct WebhooksFlowTests {
    static let adminKey = "webhooks-admin-key-0123456789abcdef0123456789abcdef"

    /// The application on `backend` delivering to `receiver`, with `extra` settings.
    static func start(_ backend: Backend, receiver: WebhookReceiver, extra: [String: String] = [:]) async throws
        -> (InProcessApp, TestEnvironment.S3)
    {
        var more = receiver.settings
        more["PRESIGN_AUTH_API_KEYS"] = "ops:\(SHA256.hash(adminKey).hex):admin"
        for (k, v) in extra { more[k] = v }
        return try await ImagesFlowTests.start(backend, extra: more)
    }

    /// `method path` as `user`.
    static func call(_ server: some HTTPTarget, _ method: String, _ path: String, user: String, body: String? = nil)
        async throws -> WireResponse
    {
        try await ImagesFlowTests.request(server, method, path, user: user, body: body)
    }

    /// `method path` with the admin key.
    static func admin(_ server: some HTTPTarget, _ method: String, _ path: String, key: String? = adminKey)
        async throws -> WireResponse
    {
        try await server.exchange(method, path, headers: key.map { "X-Api-Key: \($0)\r\n" } ?? "")
    }

    /// Every signature the receiver got verified by itself and by the reference library, which also
    /// refused each one tampered with (body, id, an old timestamp).
    static func expectVerified(_ receiver: WebhookReceiver) throws {
        let deliveries = receiver.deliveries
        #expect(!deliveries.isEmpty)
        let unverified = deliveries.filter { !$0.verified }.map(\.id)
        #expect(unverified.isEmpty, "\(unverified)")
        let check = try receiver.verifyWithReference()
        #expect(check.verified == deliveries.count && check.refused.isEmpty, "\(check)")
        #expect(check.tamperedAccepted.isEmpty, "\(check)")
    }

    /// The client B compat flow in dev mode: issue, upload, save into quest 4's slot; the image key.
    static func compatSave(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String) async throws -> String {
        let uuid = UUID().uuidString
        let issued = try await server.exchange(
            "POST", "/api/v1/quests/images/signed-url", host: "api.example.test", headers: "X-User-Id: \(user)\r\n",
            body: #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        try #require(issued.status == 200, "\(issued.text)")
        let url = try #require(try JSONValue(parsing: issued.body)["data"]?["signedUrl"]?.stringValue)
        let target = String(url[try #require(url.range(of: s3.endpoint)).upperBound...])
        let jpeg = TestImages.jpeg(width: 5, height: 5, tail: Array(uuid.utf8))
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/jpeg", body: jpeg) == 200)
        let saved = try await server.exchange(
            "POST", "/api/v1/quests/4/active", host: "api.example.test", headers: "X-User-Id: \(user)\r\n",
            body: #"{"imageKey":"\#(uuid)"}"#)
        try #require(saved.status == 200, "\(saved.text)")
        return uuid.lowercased()
    }

    /// An Uppy multipart upload of one small part, completed; the record's id.
    static func uppyComplete(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String) async throws -> String {
        let (key, uploadId) = try await UppyFlowTests.create(server, user: user, filename: "one part.jpg")
        let base = "/s3/multipart/\(UppyFlowTests.q(uploadId))"
        let part = try await UppyFlowTests.call(server, "GET", "\(base)/1?key=\(UppyFlowTests.q(key))", user: user)
        let partURL = try #require(try UppyFlowTests.json(part)["url"]?.stringValue)
        let (status, etag) = try await UppyFlowTests.put(
            s3, url: partURL, bytes: TestImages.jpeg(width: 6, height: 6, tail: Array(key.utf8)))
        #expect(status == 200)
        let body = #"{"parts":[{"PartNumber":1,"ETag":\#(try #require(etag).debugDescription)}]}"#
        let done = try await UppyFlowTests.call(
            server, "POST", "\(base)/complete?key=\(UppyFlowTests.q(key))", user: user, body: body)
        try #require(done.status == 200, "\(done.text)")
        return try #require(try UppyFlowTests.json(done)["record"]?["id"]?.stringValue)
    }

    @Test(
        "POST /images, a compat save, an Uppy completion and the store's event: one upload.completed each, signed",
        arguments: Backend.allCases)
    func everyConfirmingPathIsOneCompletedEvent(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let secret = "s-\(UUID().uuidString)"
        let (server, s3) = try await Self.start(
            backend, receiver: receiver,
            extra: [
                "PRESIGN_COMPAT_PROFILES": "clientB", "PRESIGN_UPPY_ENABLED": "true",
                "PRESIGN_EVENTS_ENABLED": "true", "PRESIGN_EVENTS_SECRET": secret,
                "PRESIGN_EVENTS_RECORD_DELAY_MS": "0", "PRESIGN_EVENTS_RECONCILE_INTERVAL_MS": "0",
            ])
        defer { server.stop() }
        let user = "wh-\(UUID().uuidString.prefix(8).lowercased())"
        // POST /images (client P's FEED type), confirmed twice: one record, one event.
        let feedKey = try await ImagesFlowTests.uploadP(
            server, s3, user: user, type: "FEED", bytes: TestImages.jpeg(width: 7, height: 7, tail: Array(user.utf8)))
        let confirmed = try await Self.call(server, "POST", "/images", user: user, body: #"{"imageKey":"\#(feedKey)"}"#)
        try #require(confirmed.status == 201, "\(confirmed.text)")
        #expect(
            try await Self.call(server, "POST", "/images", user: user, body: #"{"imageKey":"\#(feedKey)"}"#).status
                == 200)
        // Client B's compat save into a quest's slot.
        let compatKey = try await Self.compatSave(server, s3, user: user)
        // Uppy's multipart completion.
        let uppyId = try await Self.uppyComplete(server, s3, user: user)
        // The store's own event for an upload nobody confirmed, pushed twice (RGW delivers again).
        let eventKey = try await ImagesFlowTests.uploadP(
            server, s3, user: user, type: "FEED", bytes: TestImages.jpeg(width: 8, height: 8, tail: Array("e".utf8)))
        let push = ExactlyOnceFlowTests.rgwPush(bucket: s3.bucket, key: eventKey, size: 0, secret: secret)
        for _ in 0..<2 { #expect(try await ExactlyOnceFlowTests.post(server, "/events/rgw", push).status == 200) }
        #expect(
            try await eventually {
                try await ExactlyOnceFlowTests.records(server, user: user).count == 4
            }, "\(server.log.text.suffix(2000))")
        let records = try await ExactlyOnceFlowTests.records(server, user: user)
        let ids = Set(records.compactMap { $0["id"]?.stringValue })
        #expect(ids.contains(uppyId))
        let imageKeys = Set(records.compactMap { $0["imageKey"]?.stringValue })
        #expect(imageKeys.isSuperset(of: [feedKey, compatKey, eventKey]))
        // Each record's upload.completed arrives once, with the record as GET /images/{id} shows it.
        #expect(
            await eventually { receiver.events(ofType: "upload.completed").count == 4 },
            "\(receiver.deliveries.map(\.type)) \(server.log.text.suffix(2000))")
        #expect(await eventually { receiver.events(ofType: "upload.replaced").count == 1 })
        let completed = receiver.events(ofType: "upload.completed")
        #expect(Set(completed.compactMap { $0.data?["id"]?.stringValue }) == ids)
        for record in records {
            let id = try #require(record["id"]?.stringValue)
            let delivery = try #require(completed.first { $0.data?["id"]?.stringValue == id })
            let shown = try JSONValue(parsing: await Self.call(server, "GET", "/images/\(id)", user: user).body)
            var expected = try #require(shown.objectValue)
            expected["url"] = nil
            expected["ownerId"] = .string(user)
            #expect(delivery.data == .object(expected))
        }
        #expect(receiver.events(ofType: "upload.replaced").first?.data?["slot"]?.stringValue == "quest:4")
        // No second event of a record under another id: every delivery of an id is that id's only one.
        let completedIds = receiver.deliveries.filter { $0.type == "upload.completed" }.map(\.id)
        #expect(Set(completedIds).count == 4 && completedIds.count == 4, "\(completedIds)")
        try Self.expectVerified(receiver)
    }

    @Test("the reconciler's record is one upload.completed", arguments: Backend.allCases)
    func theReconcilersRecordIsOneCompletedEvent(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let prefix = "wh-\(UUID().uuidString.prefix(8).lowercased())/"
        let (server, s3) = try await Self.start(
            backend, receiver: receiver,
            extra: [
                "PRESIGN_TYPES": ExactlyOnceFlowTests.types(prefix: prefix), "PRESIGN_PRESIGN_DEFAULT_POST_TYPE": "EO",
                "PRESIGN_EVENTS_ENABLED": "true", "PRESIGN_EVENTS_SECRET": "s-\(UUID().uuidString)",
                "PRESIGN_EVENTS_RECONCILE_INTERVAL_MS": "500", "PRESIGN_EVENTS_RECONCILE_MIN_AGE_SECONDS": "0",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            ])
        defer { server.stop() }
        let key = try await ExactlyOnceFlowTests.uploadUnconfirmed(server, s3, user: "31", n: 0)
        #expect(
            await eventually { receiver.events(ofType: "upload.completed").count == 1 },
            "\(server.log.text.suffix(2000))")
        let delivery = try #require(receiver.events(ofType: "upload.completed").first)
        #expect(delivery.data?["imageKey"]?.stringValue == key && delivery.data?["ownerId"]?.stringValue == "31")
        // More passes of the reconciler add nothing.
        let passes = try await ExactlyOnceFlowTests.metric(server, "presignd_reconciler_passes_total")
        #expect(
            try await eventually {
                try await ExactlyOnceFlowTests.metric(server, "presignd_reconciler_passes_total") > passes + 1
            })
        #expect(receiver.deliveries.filter { $0.type == "upload.completed" }.count == 1)
        try Self.expectVerified(receiver)
    }

    @Test("a receiver answering 500 three times, then 200: four attempts of one event", arguments: Backend.allCases)
    func threeFailuresThenSuccessIsFourAttempts(backend: Backend) async throws {
        let receiver = try WebhookReceiver { n, _ in n < 3 ? 500 : nil }
        defer { receiver.down() }
        let (server, s3) = try await Self.start(backend, receiver: receiver)
        defer { server.stop() }
        let key = try await ImagesFlowTests.uploadP(
            server, s3, user: "5", type: "FEED", bytes: TestImages.jpeg(width: 4, height: 4))
        #expect(
            try await Self.call(server, "POST", "/images", user: "5", body: #"{"imageKey":"\#(key)"}"#).status == 201)
        #expect(await eventually { receiver.events.count == 1 }, "\(server.log.text.suffix(2000))")
        let id = try #require(receiver.events.keys.first)
        #expect(receiver.attempts(of: id) == 4)
        #expect(receiver.deliveries.map(\.status) == [500, 500, 500, 200])
        // Every attempt the same id and body, each signed at its own time.
        #expect(Set(receiver.deliveries.map(\.body)).count == 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(receiver.deliveries.count == 4, "nothing is sent after the 2xx")
        let metrics = try await Self.call(server, "GET", "/metrics", user: "ops").text
        #expect(metrics.contains(#"presignd_webhook_deliveries_total{outcome="retried"} 3"#))
        #expect(metrics.contains(#"presignd_webhook_deliveries_total{outcome="delivered"} 1"#))
        #expect(metrics.contains("presignd_webhook_pending 0"))
        try Self.expectVerified(receiver)
    }

    @Test(
        "the receiver down for 20 s: the API answers meanwhile, and everything is delivered after",
        arguments: Backend.allCases)
    func aReceiverDownFor20Seconds(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        receiver.down()
        let (server, s3) = try await Self.start(backend, receiver: receiver)
        defer { server.stop() }
        var keys: [String] = []
        // When the first event was surely written: once its confirmation has been answered.
        var firstWritten: Date?
        for n in 0..<5 {
            let key = try await ImagesFlowTests.uploadP(
                server, s3, user: "6", type: "FEED", bytes: TestImages.jpeg(width: 4, height: 4, tail: [UInt8(n)]))
            let confirmed = try await Self.call(server, "POST", "/images", user: "6", body: #"{"imageKey":"\#(key)"}"#)
            #expect(confirmed.status == 201)
            if firstWritten == nil { firstWritten = Date() }
            keys.append(key)
        }
        // Pending and growing older while the receiver is down; /readyz does not depend on it.
        #expect(try await eventually { try await ExactlyOnceFlowTests.metric(server, "presignd_webhook_pending") == 5 })
        #expect(try await Self.call(server, "GET", "/readyz", user: "ops").status == 200)
        let pending = try await Self.admin(server, "GET", "/admin/webhooks?state=pending")
        #expect(pending.status == 200, "\(pending.text)")
        let items = try JSONValue(parsing: pending.body)["items"]?.arrayValue ?? []
        #expect(items.count == 5)
        #expect(
            items.allSatisfy {
                $0["lastError"]?.stringValue?.hasPrefix("connection failed") == true || $0["attempts"]?.intValue == 0
            })
        let rest = 20 - Date().timeIntervalSince(firstWritten ?? Date())
        if rest > 0 { try await Task.sleep(for: .milliseconds(Int(rest * 1000))) }
        #expect(try await ExactlyOnceFlowTests.metric(server, "presignd_webhook_oldest_pending_age_seconds") >= 19)
        try receiver.up()
        #expect(
            await eventually(within: 30) { receiver.events(ofType: "upload.completed").count == 5 },
            "\(server.log.text.suffix(2000))")
        #expect(
            Set(receiver.events(ofType: "upload.completed").compactMap { $0.data?["imageKey"]?.stringValue })
                == Set(keys))
        #expect(try await eventually { try await ExactlyOnceFlowTests.metric(server, "presignd_webhook_pending") == 0 })
        try Self.expectVerified(receiver)
    }

    @Test(
        "deleted, rejected and expired events; a failed delivery listed, redelivered, logged once",
        arguments: Backend.allCases)
    func theOtherEventsAndTheOperatorsRoutes(backend: Backend) async throws {
        // The first event's every attempt fails (3 of 3), the rest go through.
        let failing = Mutex<String?>(nil)
        let receiver = try WebhookReceiver { _, id in
            failing.withLock { first in
                if first == nil { first = id }
                return first == id ? 503 : nil
            }
        }
        defer { receiver.down() }
        let (server, s3) = try await Self.start(
            backend, receiver: receiver,
            extra: [
                "PRESIGN_WEBHOOKS_MAX_ATTEMPTS": "3", "PRESIGN_RECORDS_JANITOR_GRACE_MS": "0",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000", "PRESIGN_RECORDS_DELETE_UNCONFIRMED_OBJECTS": "true",
            ])
        defer { server.stop() }
        // A record made, then deleted.
        let key = try await ImagesFlowTests.uploadP(
            server, s3, user: "8", type: "FEED", bytes: TestImages.jpeg(width: 4, height: 4))
        let made = try await Self.call(server, "POST", "/images", user: "8", body: #"{"imageKey":"\#(key)"}"#)
        let id = try #require(try JSONValue(parsing: made.body)["id"]?.stringValue)
        #expect(try await Self.call(server, "DELETE", "/images/\(id)", user: "8").status == 204)
        // An upload refused by the content check.
        let html = try await ImagesFlowTests.uploadP(
            server, s3, user: "8", type: "FEED", contentType: "image/jpeg", bytes: Array("<html>x</html>".utf8))
        #expect(
            try await Self.call(server, "POST", "/images", user: "8", body: #"{"imageKey":"\#(html)"}"#).status == 422)
        #expect(await eventually { receiver.events(ofType: "upload.deleted").count == 1 })
        #expect(await eventually { receiver.events(ofType: "upload.rejected").count == 1 })
        let rejected = try #require(receiver.events(ofType: "upload.rejected").first)
        #expect(
            rejected.data?["reason"]?.stringValue == "CONTENT_MISMATCH"
                && rejected.data?["imageKey"]?.stringValue == html)
        #expect(receiver.events(ofType: "upload.deleted").first?.data?["id"]?.stringValue == id)
        // The completed event of the record (the first) failed for good: listed, logged once, redelivered.
        let failedId = try #require(failing.withLock { $0 })
        #expect(try await eventually { try await ExactlyOnceFlowTests.metric(server, "presignd_webhook_failed") == 1 })
        let listed = try await Self.admin(server, "GET", "/admin/webhooks?state=failed")
        #expect(listed.status == 200, "\(listed.text)")
        let item = try #require(try JSONValue(parsing: listed.body)["items"]?.arrayValue?.first)
        #expect(item["eventId"]?.stringValue == failedId && item["attempts"]?.intValue == 3)
        #expect(item["type"]?.stringValue == "upload.completed" && item["lastError"]?.stringValue == "answered 503")
        #expect(item["payload"]?["data"]?["id"]?.stringValue == id)
        #expect(server.log.text.components(separatedBy: "webhook delivery failed for good").count == 2)
        failing.withLock { $0 = "none any more" }
        let again = try await Self.admin(server, "POST", "/admin/webhooks/\(failedId)/redeliver")
        #expect(again.status == 202, "\(again.text)")
        #expect(try JSONValue(parsing: again.body)["deliveries"]?.intValue == 1)
        #expect(await eventually { receiver.events[failedId] != nil })
        // The operator's routes need the admin key; an unknown event is 404; a bad query 422.
        #expect(try await Self.admin(server, "GET", "/admin/webhooks?state=failed", key: nil).status == 401)
        #expect(try await Self.admin(server, "GET", "/admin/webhooks?state=failed", key: "wrong").status == 401)
        #expect(try await Self.admin(server, "POST", "/admin/webhooks/no-such-event/redeliver").status == 404)
        #expect(try await Self.admin(server, "GET", "/admin/webhooks?state=delivered").status == 422)
        #expect(try await Self.admin(server, "GET", "/admin/webhooks").status == 422)
        #expect(try await Self.admin(server, "GET", "/admin/webhooks?state=failed&limit=0").status == 422)
        // An intent left unconfirmed past its expiry (written expired an hour ago: URLs live minutes): the
        // janitor removes it, upload.expired.
        let expiredKey = try await Self.expiredIntent(server, owner: "8")
        #expect(
            await eventually { receiver.events(ofType: "upload.expired").count == 1 }, "\(server.log.text.suffix(2000))"
        )
        let expired = try #require(receiver.events(ofType: "upload.expired").first)
        #expect(expired.data?["ownerId"]?.stringValue == "8" && expired.data?["objectDeleted"]?.boolValue == true)
        #expect(expired.data?["imageKey"]?.stringValue == expiredKey && expired.data?["type"]?.stringValue == "FEED")
        try Self.expectVerified(receiver)
    }

    /// An intent of `owner` that expired an hour ago, written to the application's store as the issue
    /// routes write one; its key.
    static func expiredIntent(_ server: InProcessApp, owner: String) async throws -> String {
        let key = "feed/\(owner)/expired-\(UUID().uuidString.lowercased()).jpg"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let intent = UploadIntent(
            ownerId: owner, imageKey: key, objectKey: key, permanentKey: nil, type: "FEED", contentType: "image/jpeg",
            allowedContentTypes: ["image/jpeg"], maxBytes: 1000, createdAtMs: now - 4_200_000,
            expiresAtMs: now - 3_600_000)
        try await onThread { try server.core.store.putIntents([intent]) }
        return key
    }
}
