import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// The malware scan before publishing end to end (docs/scanning.md): the application in process on a
/// real RGW, each records backend, the real clamd (scripts/start-clamd.sh, with only the project's test
/// signature) and a real webhook receiver. Client P's PROFILE type scans: its confirmation answers 202
/// with a `scanning` record, and the object reaches its permanent key only once clean. The kill -9 proof
/// is in ScanningBinaryTests.
@Suite("Scanning: clean published, marker rejected, clamd down, too large", .serialized, .onDispatchThreads)
struct ScanningFlowTests {
    /// PROFILE scans; the scanner polls and retries quickly.
    static func settings(clamd: String, extra: [String: String] = [:]) -> [String: String] {
        var s = [
            "PRESIGN_TYPES": #"{"PROFILE":{"scan":"clamav"}}"#, "PRESIGN_SCAN_CLAMD_ADDRESS": clamd,
            "PRESIGN_SCAN_POLL_INTERVAL_MS": "50", "PRESIGN_SCAN_RETRY_BASE_MS": "100",
            "PRESIGN_SCAN_RETRY_MAX_MS": "400", "PRESIGN_SCAN_TIMEOUT_MS": "5000",
        ]
        for (k, v) in extra { s[k] = v }
        return s
    }

    /// The application on `backend` scanning with clamd at `clamd`, delivering to `receiver`.
    static func start(_ backend: Backend, clamd: String, receiver: WebhookReceiver, extra: [String: String] = [:])
        async throws -> (InProcessApp, TestEnvironment.S3)
    {
        try await WebhooksFlowTests.start(backend, receiver: receiver, extra: settings(clamd: clamd, extra: extra))
    }

    /// Uploads `bytes` as a PROFILE image of `user` and confirms it: the answer (202 expected) and its record.
    static func uploadAndConfirm(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String, bytes: [UInt8])
        async throws -> (status: Int, record: JSONValue)
    {
        let key = try await ImagesFlowTests.uploadP(server, s3, user: user, bytes: bytes)
        let r = try await ImagesFlowTests.request(
            server, "POST", "/images", user: user, body: #"{"imageKey":"\#(key)"}"#)
        return (r.status, try JSONValue(parsing: r.body))
    }

    /// The caller's record `id` as `GET /images/{id}` shows it.
    static func record(_ server: some HTTPTarget, id: String, user: String) async throws -> JSONValue {
        let r = try await ImagesFlowTests.request(server, "GET", "/images/\(id)", user: user)
        try #require(r.status == 200, "\(r.text)")
        return try JSONValue(parsing: r.body)
    }

    /// Waits until record `id` is no longer `scanning`; its final JSON.
    static func settled(_ server: some HTTPTarget, id: String, user: String) async throws -> JSONValue {
        var last: JSONValue = .null
        let done = try await eventually(within: 30, pollMs: 50) {
            last = try await record(server, id: id, user: user)
            return last["state"]?.stringValue != "scanning"
        }
        try #require(done, "still scanning: \(last)")
        return last
    }

    /// A JPEG whose bytes are its own; with the test signature's marker in its tail when `infected`.
    static func jpeg(infected: Bool = false) -> [UInt8] {
        TestImages.jpeg(
            width: 6, height: 4,
            tail: Array(UUID().uuidString.utf8) + (infected ? ClamdDaemon.marker + Array("!".utf8) : []))
    }

    @Test(
        "a clean JPEG: 202 scanning, then published at its permanent key, served, one upload.completed",
        arguments: Backend.allCases)
    func cleanUploadIsPublishedAfterItsScan(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let (server, s3) = try await Self.start(backend, clamd: try TestServices.clamdAddress(), receiver: receiver)
        defer { server.stop() }
        let user = "scan-\(UUID().uuidString.prefix(8).lowercased())"
        let bytes = Self.jpeg()
        let (status, accepted) = try await Self.uploadAndConfirm(server, s3, user: user, bytes: bytes)
        try #require(status == 202, "\(accepted)")
        #expect(accepted["state"]?.stringValue == "scanning")
        #expect(accepted["url"] == .null)
        let uploadKey = try #require(accepted["key"]?.stringValue)
        #expect(uploadKey.hasPrefix("delete/profile/"), "not promoted before its scan: \(uploadKey)")
        let id = try #require(accepted["id"]?.stringValue)
        let published = try await Self.settled(server, id: id, user: user)
        #expect(published["state"]?.stringValue == "published", "\(published)")
        #expect(published["rejection"] == nil)
        let permanent = try #require(published["key"]?.stringValue)
        #expect(
            permanent
                == uploadKey.replacingOccurrences(of: "delete/profile/", with: "profile/").replacingOccurrences(
                    of: "/\(user)/", with: "/\(user)/origin/"))
        // Served: the read URL of the record, fetched from RGW, is the bytes; the upload key is gone.
        let url = try #require(published["url"]?.stringValue)
        #expect(url.contains(permanent))
        let read = try await ImagesFlowTests.request(server, "GET", "/images/\(id)/url", user: user)
        try #require(read.status == 200, "\(read.text)")
        let signed = try #require(try JSONValue(parsing: read.body)["url"]?.stringValue)
        let (host, port) = s3.hostPort
        let target = String(signed[try #require(signed.range(of: "\(host):\(port)")).upperBound...])
        let got = try await SocketTarget(host: host, port: port).exchange(
            "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(got.status == 200 && got.body == bytes)
        #expect(try await s3.fetch("HEAD", key: uploadKey).status == 404)
        // One upload.completed, of the record as published (never one of it scanning).
        #expect(await eventually { receiver.events(ofType: "upload.completed").count == 1 })
        let completed = receiver.events(ofType: "upload.completed")
        #expect(completed.count == 1)
        #expect(completed.first?.data?["id"]?.stringValue == id)
        #expect(completed.first?.data?["state"]?.stringValue == "published")
        #expect(completed.first?.data?["key"]?.stringValue == permanent)
        let metrics = try await ImagesFlowTests.request(server, "GET", "/metrics", user: user).text
        #expect(metrics.contains(#"presignd_scans_total{outcome="clean"} 1"#), "\(metrics)")
        #expect(metrics.contains("presignd_scan_pending 0"))
        try WebhooksFlowTests.expectVerified(receiver)
    }

    @Test(
        "the test signature's marker: rejected with its name, the object deleted, upload.rejected delivered",
        arguments: Backend.allCases)
    func infectedUploadIsRejectedAndDeleted(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let (server, s3) = try await Self.start(backend, clamd: try TestServices.clamdAddress(), receiver: receiver)
        defer { server.stop() }
        let user = "scan-\(UUID().uuidString.prefix(8).lowercased())"
        let (status, accepted) = try await Self.uploadAndConfirm(
            server, s3, user: user, bytes: Self.jpeg(infected: true))
        try #require(status == 202, "\(accepted)")
        let id = try #require(accepted["id"]?.stringValue)
        let uploadKey = try #require(accepted["key"]?.stringValue)
        let rejected = try await Self.settled(server, id: id, user: user)
        #expect(rejected["state"]?.stringValue == "rejected", "\(rejected)")
        #expect(rejected["url"] == .null)
        #expect(rejected["rejection"]?["reason"]?.stringValue == "MALWARE_FOUND")
        #expect(rejected["rejection"]?["message"]?.stringValue?.hasPrefix("Presignd.Test.Marker-1") == true)
        // Its object is gone from both keys; its URL routes answer 404.
        #expect(try await s3.fetch("HEAD", key: uploadKey).status == 404)
        let permanent = uploadKey.replacingOccurrences(of: "delete/profile/\(user)/", with: "profile/\(user)/origin/")
        #expect(try await s3.fetch("HEAD", key: permanent).status == 404)
        let url = try await ImagesFlowTests.request(server, "GET", "/images/\(id)/url", user: user)
        #expect(url.status == 404, "\(url.text)")
        #expect(try await ImagesFlowTests.request(server, "GET", "/images/\(id)/content", user: user).status == 404)
        let batch = try await ImagesFlowTests.request(
            server, "POST", "/images/urls", user: user, body: #"{"ids":["\#(id)"]}"#)
        #expect(try JSONValue(parsing: batch.body)["missing"] == .array([.string(id)]), "\(batch.text)")
        // upload.rejected delivered, never upload.completed.
        #expect(await eventually { receiver.events(ofType: "upload.rejected").count == 1 })
        let event = try #require(receiver.events(ofType: "upload.rejected").first)
        #expect(event.data?["id"]?.stringValue == id)
        #expect(event.data?["reason"]?.stringValue == "MALWARE_FOUND")
        #expect(event.data?["message"]?.stringValue?.hasPrefix("Presignd.Test.Marker-1") == true)
        #expect(event.data?["state"]?.stringValue == "rejected")
        #expect(receiver.events(ofType: "upload.completed").isEmpty)
        try WebhooksFlowTests.expectVerified(receiver)
    }

    @Test(
        "clamd stopped: records stay scanning (SCAN_PENDING, pending, /readyz says down), then finish when it is back",
        .heavy(aloneSeconds: 13), arguments: Backend.allCases)
    func clamdDownKeepsRecordsScanningUntilItIsBack(backend: Backend) async throws {
        let clamd = try ClamdDaemon()
        defer { clamd.destroy() }
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let (server, s3) = try await Self.start(backend, clamd: clamd.address, receiver: receiver)
        defer { server.stop() }
        try clamd.stop()
        let user = "scan-\(UUID().uuidString.prefix(8).lowercased())"
        let clean = try await Self.uploadAndConfirm(server, s3, user: user, bytes: Self.jpeg())
        let infected = try await Self.uploadAndConfirm(server, s3, user: user, bytes: Self.jpeg(infected: true))
        try #require(clean.status == 202 && infected.status == 202, "\(clean) \(infected)")
        let cleanId = try #require(clean.record["id"]?.stringValue)
        let infectedId = try #require(infected.record["id"]?.stringValue)
        // Scans are tried and retried: none gives a verdict, none publishes.
        #expect(
            try await eventually(within: 20, pollMs: 50) {
                let metrics = try await ImagesFlowTests.request(server, "GET", "/metrics", user: user).text
                return metrics.contains("presignd_scanner_up 0")
                    && metrics.split(separator: "\n").contains {
                        $0.hasPrefix(#"presignd_scans_total{outcome="error"} "#)
                            && Int($0.split(separator: " ").last ?? "0") ?? 0 >= 4
                    }
            })
        for id in [cleanId, infectedId] {
            let r = try await Self.record(server, id: id, user: user)
            #expect(r["state"]?.stringValue == "scanning" && r["url"] == .null, "\(r)")
        }
        let url = try await ImagesFlowTests.request(server, "GET", "/images/\(cleanId)/url", user: user)
        #expect(url.status == 409, "\(url.text)")
        #expect(try JSONValue(parsing: url.body)["code"]?.stringValue == "SCAN_PENDING", "\(url.text)")
        #expect(
            try await ImagesFlowTests.request(server, "GET", "/images/\(cleanId)/content", user: user).status == 409)
        let batch = try await ImagesFlowTests.request(
            server, "POST", "/images/urls", user: user, body: #"{"ids":["\#(cleanId)","\#(infectedId)"]}"#)
        let batchJSON = try JSONValue(parsing: batch.body)
        #expect(batchJSON["pending"] == .array([.string(cleanId), .string(infectedId)]), "\(batch.text)")
        #expect(batchJSON["urls"] == .object([:]))
        // /readyz stays ready (scanning types wait, others do not depend on clamd) and says the scanner is down.
        let ready = try await ImagesFlowTests.request(server, "GET", "/readyz", user: user)
        #expect(ready.status == 200, "\(ready.text)")
        #expect(try JSONValue(parsing: ready.body)["checks"]?["scanner"]?.stringValue?.hasPrefix("down since") == true)
        #expect(receiver.events(ofType: "upload.completed").isEmpty)
        // clamd back: both finish, each as its bytes say.
        try clamd.start()
        #expect(try await Self.settled(server, id: cleanId, user: user)["state"]?.stringValue == "published")
        let rejected = try await Self.settled(server, id: infectedId, user: user)
        #expect(rejected["rejection"]?["reason"]?.stringValue == "MALWARE_FOUND", "\(rejected)")
        #expect(await eventually { receiver.events(ofType: "upload.completed").count == 1 })
        #expect(receiver.events(ofType: "upload.completed").first?.data?["id"]?.stringValue == cleanId)
        let readyAgain = try await ImagesFlowTests.request(server, "GET", "/readyz", user: user)
        #expect(
            try JSONValue(parsing: readyAgain.body)["checks"]?["scanner"]?.stringValue == "ok", "\(readyAgain.text)")
    }

    @Test("an upload over scan.maxBytes: rejected TOO_LARGE_TO_SCAN and deleted", arguments: Backend.allCases)
    func overMaxBytesIsTooLargeToScan(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let (server, s3) = try await Self.start(
            backend, clamd: try TestServices.clamdAddress(), receiver: receiver,
            extra: ["PRESIGN_SCAN_MAX_BYTES": "2000"])
        defer { server.stop() }
        let user = "scan-\(UUID().uuidString.prefix(8).lowercased())"
        let big = TestImages.jpeg(width: 6, height: 4, tail: [UInt8](repeating: 0x41, count: 3000))
        let (status, accepted) = try await Self.uploadAndConfirm(server, s3, user: user, bytes: big)
        try #require(status == 202, "\(accepted)")
        let id = try #require(accepted["id"]?.stringValue)
        let rejected = try await Self.settled(server, id: id, user: user)
        #expect(rejected["state"]?.stringValue == "rejected")
        #expect(rejected["rejection"]?["reason"]?.stringValue == "TOO_LARGE_TO_SCAN", "\(rejected)")
        #expect(try await s3.fetch("HEAD", key: try #require(accepted["key"]?.stringValue)).status == 404)
        #expect(await eventually { receiver.events(ofType: "upload.rejected").count == 1 })
        #expect(receiver.events(ofType: "upload.rejected").first?.data?["reason"]?.stringValue == "TOO_LARGE_TO_SCAN")
        // A small one of the same type is still scanned and published.
        let (_, small) = try await Self.uploadAndConfirm(server, s3, user: user, bytes: Self.jpeg())
        let smallId = try #require(small["id"]?.stringValue)
        #expect(try await Self.settled(server, id: smallId, user: user)["state"]?.stringValue == "published")
    }

    @Test(
        "a compat save and an Uppy completion of a scanned type: 202, no URL, then published",
        arguments: Backend.allCases)
    func compatAndUppyConfirmationsAnswer202(backend: Backend) async throws {
        let receiver = try WebhookReceiver()
        defer { receiver.down() }
        let (server, s3) = try await WebhooksFlowTests.start(
            backend, receiver: receiver,
            extra: Self.settings(
                clamd: try TestServices.clamdAddress(),
                extra: [
                    "PRESIGN_TYPES": #"{"IMAGE":{"scan":"clamav"}}"#, "PRESIGN_COMPAT_PROFILES": "clientB",
                    "PRESIGN_UPPY_ENABLED": "true",
                ]))
        defer { server.stop() }
        let user = "scan-\(UUID().uuidString.prefix(8).lowercased())"
        // Client B's save into a quest's slot: its envelope, status 202, `signedUrl` null.
        let uuid = UUID().uuidString
        let issued = try await server.exchange(
            "POST", "/api/v1/quests/images/signed-url", host: "api.example.test", headers: "X-User-Id: \(user)\r\n",
            body: #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        try #require(issued.status == 200, "\(issued.text)")
        let url = try #require(try JSONValue(parsing: issued.body)["data"]?["signedUrl"]?.stringValue)
        let target = String(url[try #require(url.range(of: s3.endpoint)).upperBound...])
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/jpeg", body: Self.jpeg()) == 200)
        let saved = try await server.exchange(
            "POST", "/api/v1/quests/4/active", host: "api.example.test", headers: "X-User-Id: \(user)\r\n",
            body: #"{"imageKey":"\#(uuid)"}"#)
        #expect(saved.status == 202, "\(saved.text)")
        let envelope = try JSONValue(parsing: saved.body)
        #expect(envelope["success"] == .bool(true), "\(saved.text)")
        #expect(envelope["data"]?["imageUrl"] == .null, "\(saved.text)")
        #expect(!saved.text.contains("X-Amz-Signature"), "a URL of an unscanned upload: \(saved.text)")
        // Uppy's completion: 202, `location` null, the record scanning.
        let (key, uploadId) = try await UppyFlowTests.create(server, user: user, filename: "scanned.jpg")
        let base = "/s3/multipart/\(UppyFlowTests.q(uploadId))"
        let part = try await UppyFlowTests.call(server, "GET", "\(base)/1?key=\(UppyFlowTests.q(key))", user: user)
        let partURL = try #require(try UppyFlowTests.json(part)["url"]?.stringValue)
        let (status, etag) = try await UppyFlowTests.put(s3, url: partURL, bytes: Self.jpeg())
        #expect(status == 200)
        let body = #"{"parts":[{"PartNumber":1,"ETag":\#(try #require(etag).debugDescription)}]}"#
        let done = try await UppyFlowTests.call(
            server, "POST", "\(base)/complete?key=\(UppyFlowTests.q(key))", user: user, body: body)
        try #require(done.status == 202, "\(done.text)")
        let completed = try UppyFlowTests.json(done)
        #expect(completed["location"] == .null)
        #expect(completed["record"]?["state"]?.stringValue == "scanning" && completed["record"]?["url"] == .null)
        let uppyId = try #require(completed["record"]?["id"]?.stringValue)
        // Both are published once scanned.
        #expect(try await Self.settled(server, id: uppyId, user: user)["state"]?.stringValue == "published")
        #expect(
            try await eventually(within: 30, pollMs: 50) {
                let page = try await ImagesFlowTests.request(server, "GET", "/images", user: user)
                let items = try JSONValue(parsing: page.body)["items"]?.arrayValue ?? []
                return items.count == 2 && items.allSatisfy { $0["state"]?.stringValue == "published" }
            })
        #expect(await eventually { receiver.events(ofType: "upload.completed").count == 2 })
    }
}
