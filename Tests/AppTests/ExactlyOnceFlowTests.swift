import AppTestSupport
import Crypto
import Foundation
import JSON
import ObjectStore
import Records
import RecordsTestSupport
import SigV4
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 22, end to end: the application in process, a real RGW and each records backend. One record
/// per upload whatever races it: concurrent confirmations, the store's event against `POST /images`, a
/// completion whose answer was lost, the reconciler. (RGW's own push to a listening server, and its
/// deliveries again after a kill -9: CrashDurabilityTests.)
@Suite("Exactly once: claims and the store's events", .onDispatchThreads)
struct ExactlyOnceFlowTests {
    /// A server on `backend` with `extra` settings; its records URL is returned too, for a restart.
    static func start(_ backend: Backend, extra: [String: String] = [:]) async throws -> (
        InProcessApp, TestEnvironment.S3, [String: String]
    ) {
        let s3 = try TestEnvironment.s3()
        var more = extra
        more["PRESIGN_RECORDS_URL"] = try await backend.recordsURL(dir: Temporary.directory())
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: more)
        return (try await InProcessApp(environment: env), s3, env)
    }

    /// The owner's records, every page.
    static func records(_ server: some HTTPTarget, user: String, type: String? = nil) async throws -> [JSONValue] {
        var out: [JSONValue] = []
        var cursor: String?
        repeat {
            var path = "/images?limit=100" + (type.map { "&type=\($0)" } ?? "")
            if let cursor { path += "&cursor=\(cursor)" }
            let page = try JSONValue(parsing: await ImagesFlowTests.request(server, "GET", path, user: user).body)
            out += page["items"]?.arrayValue ?? []
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        return out
    }

    /// One metric's value from `/metrics` (a labelled one summed over its labels), 0 when absent.
    static func metric(_ server: some HTTPTarget, _ name: String) async throws -> Int {
        let text = try await ImagesFlowTests.request(server, "GET", "/metrics", user: "ops").text
        var sum = 0
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard line.hasPrefix(name + " ") || line.hasPrefix(name + "{") else { continue }
            sum += Int(Double(line.split(separator: " ").last ?? "") ?? 0)
        }
        return sum
    }

    @Test("8 concurrent confirmations x 40 trials: one 201, the rest 200, never a 5xx", arguments: Backend.allCases)
    func concurrentConfirmations(backend: Backend) async throws {
        let (server, s3, _) = try await Self.start(backend)
        defer { server.stop() }
        var failures: [String] = []
        for trial in 0..<40 {
            let key = try await ImagesFlowTests.uploadP(
                server, s3, user: "5", type: "FEED", bytes: TestImages.jpeg(width: 9, height: 9))
            let all = await ImagesFlowTests.confirmAtOnce(server, key: key, user: "5", times: 8)
            let statuses = all.map(\.0)
            if statuses.filter({ $0 == 201 }).count != 1 || statuses.filter({ $0 == 200 }).count != 7
                || Set(all.map(\.1)).count != 1
            {
                failures.append("trial \(trial): \(all)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        #expect(try await Self.records(server, user: "5").count == 40)
    }

    /// An RGW push of one created object, as RGW 16.2.15 sends it (Tests/StoreEventsTests/Fixtures).
    static func rgwPush(bucket: String, key: String, size: Int, secret: String) -> String {
        let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{"Records":[{"eventVersion":"2.2","eventSource":"ceph:s3","awsRegion":"","#
            + #""eventTime":"2026-12-01T21:34:28.257941Z","eventName":"ObjectCreated:Put","#
            + #""userIdentity":{"principalId":"s3test"},"requestParameters":{"sourceIPAddress":""},"#
            + #""responseElements":{"x-amz-request-id":"r","x-amz-id-2":"i"},"s3":{"s3SchemaVersion":"1.0","#
            + #""configurationId":"t","bucket":{"name":"\#(bucket)","ownerIdentity":{"principalId":"s3test"},"#
            + #""arn":"arn:aws:s3:::\#(bucket)","id":"b"},"object":{"key":"\#(escaped)","size":\#(size),"#
            + #""eTag":"00","versionId":"","sequencer":"1","metadata":[],"tags":[]}},"eventId":"e","#
            + #""opaqueData":"\#(secret)"}]}"#
    }

    /// POSTs `body` to the server's `path` (no caller headers: the events routes authenticate the body).
    static func post(_ server: some HTTPTarget, _ path: String, _ body: String) async throws -> WireResponse {
        try await server.exchange("POST", path, body: body)
    }

    @Test("the store's event and POST /images at once: one record, no 5xx", arguments: Backend.allCases)
    func eventRacesConfirmation(backend: Backend) async throws {
        let secret = "s-\(UUID().uuidString)"
        let (server, s3, _) = try await Self.start(
            backend,
            extra: [
                "PRESIGN_EVENTS_ENABLED": "true", "PRESIGN_EVENTS_SECRET": secret,
                "PRESIGN_EVENTS_RECORD_DELAY_MS": "0",
                "PRESIGN_EVENTS_RECONCILE_INTERVAL_MS": "0",
            ])
        defer { server.stop() }
        let trials = 10
        var failures: [String] = []
        for trial in 0..<trials {
            let bytes = TestImages.jpeg(width: 9, height: 9, tail: Array("race \(trial)".utf8))
            let key = try await ImagesFlowTests.uploadP(server, s3, user: "7", type: "FEED", bytes: bytes)
            let push = Self.rgwPush(bucket: s3.bucket, key: key, size: bytes.count, secret: secret)
            let results = ResultBox()
            await withTaskGroup(of: Void.self) { group in
                for i in 0..<4 {
                    group.addTask {
                        let r =
                            i % 2 == 0
                            ? try? await ImagesFlowTests.request(
                                server, "POST", "/images", user: "7", body: #"{"imageKey":"\#(key)"}"#)
                            : try? await Self.post(server, "/events/rgw", push)
                        results.add(r?.status ?? -1, i % 2 == 0 ? "confirm" : "event")
                    }
                }
            }
            let all = results.all
            let confirms = all.filter { $0.1 == "confirm" }.map(\.0)
            let events = all.filter { $0.1 == "event" }.map(\.0)
            if confirms.contains(where: { $0 != 200 && $0 != 201 }) || events.contains(where: { $0 != 200 }) {
                failures.append("trial \(trial): \(all)")
            }
        }
        #expect(failures.isEmpty, "\(failures)")
        // Every delivery settled (recorded, or found recorded by the confirmations), none retried for ever.
        let settled = try await eventually {
            try await Self.metric(server, "presignd_events_recorded_total")
                + Self.metric(server, "presignd_events_already_recorded_total") == 2 * trials
        }
        #expect(settled, "\(server.log.text.suffix(2000))")
        let records = try await Self.records(server, user: "7")
        #expect(records.count == trials)
        #expect(Set(records.compactMap { $0["imageKey"]?.stringValue }).count == trials)
        let unused = server.log.lines.filter { $0.contains("store event not used") }
        #expect(unused.isEmpty, "\(unused)")
    }

    @Test("unauthenticated, not JSON and unusable deliveries: 401, 400, and 200 counted by reason")
    func refusals() async throws {
        let secret = "s-\(UUID().uuidString)"
        let (server, s3, _) = try await Self.start(
            .sqlite,
            extra: [
                "PRESIGN_EVENTS_ENABLED": "true", "PRESIGN_EVENTS_SECRET": secret,
                "PRESIGN_EVENTS_RECORD_DELAY_MS": "0",
                "PRESIGN_EVENTS_RECONCILE_INTERVAL_MS": "0",
            ])
        defer { server.stop() }
        let wrong = try await Self.post(
            server, "/events/rgw", Self.rgwPush(bucket: s3.bucket, key: "k", size: 1, secret: "x"))
        #expect(wrong.status == 401, "\(wrong.text)")
        #expect(try JSONValue(parsing: wrong.body)["code"]?.stringValue != nil)
        #expect(try await Self.post(server, "/events/rgw", "not json").status == 400)
        let unknown = try await Self.post(
            server, "/events/rgw", Self.rgwPush(bucket: s3.bucket, key: "never/issued", size: 1, secret: secret))
        #expect(unknown.status == 200, "\(unknown.text)")
        #expect(try await eventually { try await Self.metric(server, "presignd_events_rejected_total") == 1 })
        #expect(try await Self.records(server, user: "7").isEmpty)
    }

    // MARK: - RGW's own push

    /// Types for one test: only `EO`, under a prefix no other test uploads to, so the bucket notification
    /// the test sets up sees its uploads only.
    static func types(prefix: String) -> String {
        let removed = ["PROFILE", "FEED", "CHATROOM_PROFILE", "CHAT", "CHAT_PROFILE", "IMAGE", "VIDEO"]
            .map { #""\#($0)": null"# }.joined(separator: ", ")
        return
            #"{\#(removed), "EO": {"extensions": ["jpg"], "contentTypes": ["image/jpeg"], "keyTemplate": "\#(prefix){userId}/{uuid}.{ext}", "maxBytes": 1048576}}"#
    }

    /// Removes the test's topic and notification rules.
    static func tearDownNotifications(_ s3: TestEnvironment.S3, topic: String) {
        guard let client = try? s3.client() else { return }
        for rule in (try? client.bucketNotification()) ?? [] where rule.id.hasPrefix(topic + "-") {
            try? client.deleteBucketNotification(id: rule.id)
        }
        for t in (try? client.listTopics()) ?? [] where t.name == topic { try? client.deleteTopic(arn: t.arn) }
    }

    /// Issues an EO URL for `user` and uploads a small JPEG through it, never confirming; its key.
    static func uploadUnconfirmed(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String, n: Int)
        async throws -> String
    {
        try await ImagesFlowTests.uploadP(
            server, s3, user: user, type: "EO", bytes: TestImages.jpeg(width: 9, height: 9, tail: Array("eo \(n)".utf8))
        )
    }

    @Test(
        "a multipart completion storage did but whose answer was lost: the retry gets 200 with the record",
        arguments: Backend.allCases)
    func retriedCompletion(backend: Backend) async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        // The server reaches storage through the proxy; part URLs name RGW itself.
        let (server, _) = try await UppyFlowTests.start(
            backend,
            extra: proxy.serverSettings(s3).merging([
                "PRESIGN_S3_MAX_RETRIES": "0"
            ]) { $1 })
        defer { server.stop() }
        let bytes = try UppyFlowTests.payload(100_000)
        let (key, uploadId) = try await UppyFlowTests.create(server)
        let base = "/s3/multipart/\(UppyFlowTests.q(uploadId))"
        let one = try await UppyFlowTests.call(server, "GET", "\(base)/1?key=\(UppyFlowTests.q(key))")
        let url = try #require(try UppyFlowTests.json(one)["url"]?.stringValue, "\(one.text)")
        let (status, etag) = try await UppyFlowTests.put(s3, url: url, bytes: bytes)
        #expect(status == 200)
        let body = #"{"parts":[{"PartNumber":1,"ETag":\#(try #require(etag).debugDescription)}]}"#

        // CompleteMultipartUpload (the server's only POST to storage now) reaches RGW, which completes
        // the upload; its answer is cut short on the way back.
        proxy.setRules([.init(.method("POST"), .cutShort)])
        let lost = try await UppyFlowTests.call(
            server, "POST", "\(base)/complete?key=\(UppyFlowTests.q(key))", body: body)
        #expect(lost.status >= 500, "the lost answer is the claimant's own storage failure: \(lost.text)")
        let storage = try s3.client()
        #expect(try storage.head(key: key)?.size == Int64(bytes.count), "storage completed the upload")

        // The retry hears NoSuchUpload from ListParts, finds the completion by the object's composite
        // ETag, and records it.
        proxy.setRules([])
        let retry = try await UppyFlowTests.call(
            server, "POST", "\(base)/complete?key=\(UppyFlowTests.q(key))", body: body)
        #expect(retry.status == 200, "\(retry.text)")
        let record = try UppyFlowTests.json(retry)["record"]
        #expect(record?["size"]?.intValue == bytes.count)
        let id = try #require(record?["id"]?.stringValue)
        let again = try await UppyFlowTests.call(
            server, "POST", "\(base)/complete?key=\(UppyFlowTests.q(key))", body: body)
        #expect(again.status == 200 && (try? UppyFlowTests.json(again)["record"]?["id"]?.stringValue) == id)
        #expect(try await Self.records(server, user: "42").filter { $0["id"]?.stringValue == id }.count == 1)
    }

    @Test("the reconciler records an upload whose event never came, and leaves keys it did not issue")
    func reconcilerRecordsLostEvents() async throws {
        let s3 = try TestEnvironment.s3()
        let run = UUID().uuidString.lowercased().prefix(8)
        let prefix = "eo-\(run)/"
        // Events on, but no bucket notification: nothing pushes; only the reconciler can record.
        let (server, _, _) = try await Self.start(
            .sqlite,
            extra: [
                "PRESIGN_TYPES": Self.types(prefix: prefix), "PRESIGN_PRESIGN_DEFAULT_POST_TYPE": "EO",
                "PRESIGN_EVENTS_ENABLED": "true", "PRESIGN_EVENTS_SECRET": "s-\(UUID().uuidString)",
                "PRESIGN_EVENTS_RECONCILE_INTERVAL_MS": "1000", "PRESIGN_EVENTS_RECONCILE_MIN_AGE_SECONDS": "0",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            ])
        defer { server.stop() }
        // An object under the prefix that no intent names (another client's): the reconciler leaves it.
        let foreign = "\(prefix)31/foreign.jpg"
        let signer = try Presigner(
            credentials: Credentials(
                accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey), sessionToken: nil),
            region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path)
        let url = try signer.presign(
            PresignRequest(method: "PUT", bucket: s3.bucket, key: foreign, expires: 60),
            now: Int64(Date().timeIntervalSince1970)
        ).url
        #expect(try await UppyFlowTests.put(s3, url: url, bytes: TestImages.jpeg(width: 3, height: 3)).0 == 200)
        let key = try await Self.uploadUnconfirmed(server, s3, user: "31", n: 0)
        #expect(
            try await eventually {
                try await Self.records(server, user: "31").contains { $0["imageKey"]?.stringValue == key }
            }, "\(server.log.text.suffix(3000))")
        // The pass adds to its counters when it ends, after the record it made is visible.
        #expect(try await eventually { try await Self.metric(server, "presignd_reconciler_recorded_total") == 1 })
        #expect(try await Self.metric(server, "presignd_events_received_total") == 0)
        let passes = try await Self.metric(server, "presignd_reconciler_passes_total")
        #expect(try await eventually { try await Self.metric(server, "presignd_reconciler_passes_total") > passes + 1 })
        #expect(try await Self.metric(server, "presignd_reconciler_recorded_total") == 1, "recorded once, not again")
        #expect(try await Self.records(server, user: "31").count == 1)
        #expect(try s3.client().head(key: foreign) != nil, "the foreign object stays")
    }
}
