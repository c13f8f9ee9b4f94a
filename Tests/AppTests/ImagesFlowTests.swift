import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `POST /images` and the record routes, end to end: the application in process, a real RGW, and each
/// records backend.
@Suite("Records: confirm, read, list, delete", .serialized, .onDispatchThreads)
struct ImagesFlowTests {
    /// `method path` as `user`, with `body`.
    static func request(
        _ server: some HTTPTarget, _ method: String, _ path: String, user: String, body: String? = nil
    ) async throws -> WireResponse {
        try await server.exchange(method, path, headers: "X-User-Id: \(user)\r\n", body: body)
    }

    /// The environment of a server on RGW with `backend`'s store (a fresh one) and `extra` settings.
    static func environment(_ backend: Backend, extra: [String: String] = [:]) async throws -> (
        [String: String], TestEnvironment.S3
    ) {
        let s3 = try TestEnvironment.s3()
        var more = extra
        more["PRESIGN_RECORDS_URL"] = try await backend.recordsURL(dir: Temporary.directory())
        return (TestEnvironment.serverEnvironment(s3: s3, extra: more).env, s3)
    }

    /// The application in process on RGW with `backend`'s store and `extra` settings.
    static func start(
        _ backend: Backend, extra: [String: String] = [:], nowMillis: (@Sendable () -> Int64)? = nil
    ) async throws -> (InProcessApp, TestEnvironment.S3) {
        let (env, s3) = try await environment(backend, extra: extra)
        return (try await InProcessApp(environment: env, nowMillis: nowMillis), s3)
    }

    /// Issues a client P URL and uploads `bytes` with `contentType` through it; returns the key.
    static func uploadP(
        _ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String, type: String = "PROFILE",
        ext: String = "jpg", contentType: String = "image/jpeg", bytes: [UInt8]
    ) async throws -> String {
        let r = try await ClientPFlowTests.issue(server, query: "type=\(type)&ext=\(ext)", user: user)
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["presignedUrl"]?.stringValue)
        let t = try #require(ClientPFlowTests.rebuildLikeClientP(url))
        #expect(
            try await ClientPFlowTests.put(s3, target: t.path + "?" + t.query, contentType: contentType, body: bytes)
                == 200)
        return try #require(json["key"]?.stringValue)
    }

    @Test(
        "client P: confirm promotes delete/... to .../origin/..., is idempotent, and reads back",
        arguments: Backend.allCases)
    func clientPConfirm(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let bytes = TestImages.jpeg(width: 64, height: 48, tail: Array("profile picture \(UUID())".utf8))
        let key = try await Self.uploadP(server, s3, user: "42", bytes: bytes)
        let body = #"{"imageKey":"\#(key)","metadata":{"caption":"안녕 🌏","n":1.50}}"#
        let r = try await Self.request(server, "POST", "/images", user: "42", body: body)
        #expect(r.status == 201, "\(r.text)")
        let rec = try JSONValue(parsing: r.body)
        let permanent = key.replacingOccurrences(of: "delete/profile/42/", with: "profile/42/origin/")
        #expect(rec["key"]?.stringValue == permanent)
        #expect(rec["imageKey"]?.stringValue == key)
        #expect(rec["type"]?.stringValue == "PROFILE")
        #expect(rec["size"]?.intValue == bytes.count)
        #expect(rec["contentType"]?.stringValue == "image/jpeg")
        #expect(rec["detectedType"]?.stringValue == "image/jpeg")
        #expect(rec["width"]?.intValue == 64)
        #expect(rec["height"]?.intValue == 48)
        #expect(rec["metadata"]?["caption"]?.stringValue == "안녕 🌏")
        #expect(rec["etag"]?.stringValue?.isEmpty == false)
        let id = try #require(rec["id"]?.stringValue)
        // The temporary object is gone, the permanent one holds the bytes, and `url` reads it.
        #expect(try await ClientPFlowTests.get(s3, key: key).0 == 404)
        #expect(try await ClientPFlowTests.get(s3, key: permanent).1 == bytes)
        let url = try #require(rec["url"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        let (host, port) = s3.hostPort
        let read = try await SocketTarget(host: host, port: port).exchange(
            "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n\r\n")
        #expect(read.body == bytes)
        // Idempotent repeat.
        let again = try await Self.request(server, "POST", "/images", user: "42", body: body)
        #expect(again.status == 200)
        #expect(try JSONValue(parsing: again.body)["id"]?.stringValue == id)
        // Another user: 409 for the recorded key.
        #expect(try await Self.request(server, "POST", "/images", user: "43", body: body).status == 409)
        // Read, list, delete.
        let got = try await Self.request(server, "GET", "/images/\(id)", user: "42")
        #expect(got.status == 200)
        #expect(try JSONValue(parsing: got.body)["key"]?.stringValue == permanent)
        #expect(try await Self.request(server, "GET", "/images/\(id)", user: "43").status == 404)
        #expect(try await Self.request(server, "DELETE", "/images/\(id)", user: "43").status == 404)
        #expect(try await Self.request(server, "DELETE", "/images/\(id)", user: "42").status == 204)
        #expect(try await Self.request(server, "GET", "/images/\(id)", user: "42").status == 404)
        #expect(try await ClientPFlowTests.get(s3, key: permanent).0 == 404)
    }

    @Test("client B: confirm a lower-cased UUID with its signed content type", arguments: Backend.allCases)
    func clientBConfirm(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let uuid = UUID().uuidString
        let issued = try await ClientBFlowTests.post(server, #"{"contentType":"image/png","imageKey":"\#(uuid)"}"#)
        let url = try #require(try JSONValue(parsing: issued.body)["signedUrl"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        let bytes = TestImages.png(width: 3, height: 2)
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/png", body: bytes) == 200)
        // ClientBFlowTests.post uses user 9.
        let r = try await Self.request(server, "POST", "/images", user: "9", body: #"{"imageKey":"\#(uuid)"}"#)
        #expect(r.status == 201, "\(r.text)")
        let rec = try JSONValue(parsing: r.body)
        #expect(rec["key"]?.stringValue == uuid.lowercased())
        #expect(rec["imageKey"]?.stringValue == uuid.lowercased())
        #expect(rec["contentType"]?.stringValue == "image/png")
        #expect(rec["size"]?.intValue == bytes.count)
        #expect(rec["width"]?.intValue == 3)
        #expect(rec["height"]?.intValue == 2)
        #expect(rec["type"]?.stringValue == "IMAGE")
        #expect(rec["metadata"]?.objectValue?.members.isEmpty == true)
    }

    @Test("error cases: no intent, another owner's intent, not uploaded, too large, wrong type, bad bodies")
    func errors() async throws {
        let dir = Temporary.directory()
        let config = """
            {"types": {"PROFILE": {"extensions": ["jpg", "gif"], "contentTypes": ["image/jpeg"],
              "keyTemplate": "delete/profile/{userId}/{uuid}_{epochMillis}.{ext}",
              "permanentKeyTemplate": "profile/{userId}/origin/{uuid}_{epochMillis}.{ext}",
              "maxBytes": 10, "expiresSeconds": 600, "requiresChatroomId": false},
              "IMAGE": {"extensions": [], "contentTypes": ["image/jpeg"], "keyTemplate": "{imageKey}",
              "permanentKeyTemplate": "", "maxBytes": 1048576, "expiresSeconds": 600, "requiresChatroomId": false}}}
            """
        try config.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env, arguments: ["--config", dir + "/config.json"])
        defer { server.stop() }

        let unknown = try await Self.request(server, "POST", "/images", user: "1", body: #"{"imageKey":"\#(UUID())"}"#)
        #expect(unknown.status == 404)
        #expect(unknown.text.contains("INTENT_NOT_FOUND"))

        let r = try await ClientPFlowTests.issue(server, query: "type=PROFILE&ext=jpg", user: "1")
        let key = try #require(try JSONValue(parsing: r.body)["key"]?.stringValue)
        let notUploaded = try await Self.request(server, "POST", "/images", user: "1", body: #"{"imageKey":"\#(key)"}"#)
        #expect(notUploaded.status == 404)
        #expect(notUploaded.text.contains("IMAGE_NOT_UPLOADED"))
        #expect(
            try await Self.request(server, "POST", "/images", user: "2", body: #"{"imageKey":"\#(key)"}"#).status == 403
        )

        // Larger than the type's 10-byte limit: 422, and the object is deleted.
        let big = try await Self.uploadP(server, s3, user: "1", bytes: Array(repeating: 65, count: 11))
        let tooLarge = try await Self.request(server, "POST", "/images", user: "1", body: #"{"imageKey":"\#(big)"}"#)
        #expect(tooLarge.status == 422)
        #expect(tooLarge.text.contains("IMAGE_TOO_LARGE"))
        #expect(try await ClientPFlowTests.get(s3, key: big).0 == 404)

        // A content type outside the type's list (client P signs only host, so RGW took it): 422, deleted.
        let gif = try await Self.uploadP(server, s3, user: "1", ext: "gif", contentType: "image/gif", bytes: [1])
        let wrongType = try await Self.request(server, "POST", "/images", user: "1", body: #"{"imageKey":"\#(gif)"}"#)
        #expect(wrongType.status == 422)
        // The message says what storage holds and what the type allows (the shape stays code + message).
        let refusal = try JSONValue(parsing: wrongType.body)
        #expect(refusal["code"]?.stringValue == "CONTENT_TYPE_NOT_ALLOWED")
        #expect(
            refusal["message"]?.stringValue
                == #"the object was stored with content type "image/gif"; type PROFILE allows image/jpeg"#)
        #expect(refusal.objectValue?.keys == ["code", "message"], "\(wrongType.text)")
        #expect(try await ClientPFlowTests.get(s3, key: gif).0 == 404)

        for (body, status) in [
            (#"{"imageKey":"../../etc/passwd"}"#, 422),
            (#"{"imageKey":"delete//x"}"#, 422),
            (#"{"imageKey":"delete/%2e%2e/x"}"#, 422),
            (#"{"imageKey":7}"#, 422),
            (#"{}"#, 422),
            (#"{"imageKey":"\#(UUID())","metadata":[1]}"#, 422),
            (#"{"imageKey":"\#(UUID())","metadata":{"x":""# + String(repeating: "a", count: 17_000) + #""}}"#, 422),
            (#"{"imageKey":"#, 400),
        ] {
            let resp = try await Self.request(server, "POST", "/images", user: "1", body: body)
            #expect(resp.status == status, "\(body.prefix(60)) -> \(resp.status) \(resp.text)")
        }
        #expect(try await Self.request(server, "GET", "/images/not-a-uuid", user: "1").status == 404)
        #expect(try await Self.request(server, "GET", "/images?limit=0", user: "1").status == 422)
        #expect(try await Self.request(server, "GET", "/images?limit=101", user: "1").status == 422)
        #expect(try await Self.request(server, "GET", "/images?cursor=garbage!", user: "1").status == 422)
        #expect(try await Self.request(server, "GET", "/images?type=NOPE", user: "1").status == 422)
    }

    /// `POST /images` of `key` as `user`, `times` at once: each answer's status and record id ("" when none).
    static func confirmAtOnce(_ server: some HTTPTarget, key: String, user: String, times: Int) async -> [(Int, String)]
    {
        let results = ResultBox()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<times {
                group.addTask {
                    let r = try? await Self.request(
                        server, "POST", "/images", user: user, body: #"{"imageKey":"\#(key)"}"#)
                    results.add(
                        r?.status ?? -1, r.flatMap { try? JSONValue(parsing: $0.body)["id"]?.stringValue } ?? "")
                }
            }
        }
        return results.all
    }

    @Test("concurrent confirmations of one key give one record", arguments: Backend.allCases)
    func concurrentConfirmations(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let key = try await Self.uploadP(
            server, s3, user: "5", type: "FEED", bytes: TestImages.jpeg(width: 9, height: 9))
        let all = await Self.confirmAtOnce(server, key: key, user: "5", times: 8)
        #expect(all.filter { $0.0 == 201 }.count == 1, "\(all)")
        #expect(all.filter { $0.0 == 200 }.count == 7, "\(all)")
        #expect(Set(all.map { $0.1 }).count == 1)
    }

    @Test("listing is newest first with an opaque cursor and a type filter", arguments: Backend.allCases)
    func listing(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend, extra: ["PRESIGN_S3_VERIFY_UPLOADS": "false"])
        defer { server.stop() }
        _ = s3
        var ids: [String] = []
        for i in 0..<5 {
            let uuid = UUID().uuidString
            #expect(
                try await ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#).status
                    == 200)
            let r = try await Self.request(
                server, "POST", "/images", user: "9", body: #"{"imageKey":"\#(uuid)","metadata":{"i":\#(i)}}"#)
            #expect(r.status == 201)
            let record = try JSONValue(parsing: r.body)
            ids.append(try #require(record["id"]?.stringValue))
            // The next record must be newer: wait until the clock (the server's is this host's) has passed
            // this one's millisecond, instead of assuming a short sleep did it.
            let createdAt = try #require(
                record["createdAt"]?.stringValue.flatMap { ISO8601DateFormatter.millis.date(from: $0) })
            let passed = await eventually(within: 1, pollMs: 1) {
                Date().timeIntervalSince1970 * 1000 >= (createdAt.timeIntervalSince1970 * 1000).rounded() + 1
            }
            #expect(passed, "the clock moved past the record's millisecond")
        }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let path = "/images?limit=2&type=IMAGE" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try JSONValue(parsing: await Self.request(server, "GET", path, user: "9").body)
            let items = try #require(page["items"]?.arrayValue)
            #expect(items.count <= 2)
            seen += items.compactMap { $0["id"]?.stringValue }
            cursor = page["nextCursor"]?.stringValue
        } while cursor != nil
        #expect(seen == ids.reversed())
        let other = try JSONValue(parsing: await Self.request(server, "GET", "/images", user: "10").body)
        #expect(other["items"]?.arrayValue?.isEmpty == true)
        let profile = try JSONValue(parsing: await Self.request(server, "GET", "/images?type=PROFILE", user: "9").body)
        #expect(profile["items"]?.arrayValue?.isEmpty == true)
    }

    @Test("URLs are signed for the public endpoint while the server calls the internal one; CDN URLs for records")
    func publicEndpointAndCDN() async throws {
        let s3 = try TestEnvironment.s3()
        let (host, port) = s3.hostPort
        let publicEndpoint = "http://localhost:\(port)"  // the same RGW under another name
        let (server, _) = try await Self.start(
            .sqlite,
            extra: [
                "PRESIGN_S3_PUBLIC_ENDPOINT": publicEndpoint,
                "PRESIGN_PRESIGN_CDN_BASE_URL": "https://cdn.example.com/img",
            ])
        defer { server.stop() }
        _ = host
        let uuid = UUID().uuidString.lowercased()
        let issued = try await ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        let url = try #require(try JSONValue(parsing: issued.body)["signedUrl"]?.stringValue)
        #expect(url.hasPrefix(publicEndpoint + "/"), "\(url)")
        let target = String(url.dropFirst(publicEndpoint.count))
        // Uploaded with the Host the URL was signed for; the ranged GET at confirmation goes to 127.0.0.1.
        #expect(
            try await ClientPFlowTests.put(
                s3, target: target, contentType: "image/jpeg", body: TestImages.jpeg(width: 7, height: 7),
                hostHeader: "localhost:\(port)") == 200)
        let r = try await Self.request(server, "POST", "/images", user: "9", body: #"{"imageKey":"\#(uuid)"}"#)
        #expect(r.status == 201, "\(r.text)")
        #expect(try JSONValue(parsing: r.body)["url"]?.stringValue == "https://cdn.example.com/img/\(uuid)")
    }

    @Test("over HTTPS to storage (RGW's TLS listener, s3.caFile): confirm promotes, reads and deletes; readyz ok")
    func httpsToStorage() async throws {
        let environment = ProcessInfo.processInfo.environment
        let tls = try #require(
            environment["PRESIGN_TEST_S3_TLS_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 },
            "PRESIGN_TEST_S3_TLS_ENDPOINT is not set: run the suite with scripts/test.sh (RGW with its HTTPS listener)")
        let ca = try #require(environment["PRESIGN_TEST_S3_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
        let s3 = try TestEnvironment.s3()
        // Clients upload over plain HTTP (the public endpoint); every call of the server's own goes over TLS.
        let (server, _) = try await Self.start(
            .sqlite,
            extra: [
                "PRESIGN_S3_ENDPOINT": tls, "PRESIGN_S3_PUBLIC_ENDPOINT": s3.endpoint, "PRESIGN_S3_CA_FILE": ca,
            ])
        defer { server.stop() }
        let ready = try await Self.request(server, "GET", "/readyz", user: "1")
        #expect(ready.status == 200, "\(ready.text)")
        let bytes = TestImages.jpeg(width: 8, height: 8, tail: Array("over TLS".utf8))
        let key = try await Self.uploadP(server, s3, user: "77", bytes: bytes)
        let confirmed = try await Self.request(server, "POST", "/images", user: "77", body: #"{"imageKey":"\#(key)"}"#)
        #expect(confirmed.status == 201, "\(confirmed.text)")
        let record = try JSONValue(parsing: confirmed.body)
        let permanent = try #require(record["key"]?.stringValue)
        #expect(permanent.contains("/origin/"))
        // The ranged GET, COPY and DELETE went over TLS: the object moved.
        #expect(try await ClientPFlowTests.get(s3, key: permanent).0 == 200)
        #expect(try await ClientPFlowTests.get(s3, key: key).0 == 404)
        let id = try #require(record["id"]?.stringValue)
        #expect(try await Self.request(server, "DELETE", "/images/\(id)", user: "77").status == 204)
        #expect(try await ClientPFlowTests.get(s3, key: permanent).0 == 404)
        // Without the CA the server's calls fail verification: not ready.
        let (untrusting, _) = try await Self.start(.sqlite, extra: ["PRESIGN_S3_ENDPOINT": tls])
        defer { untrusting.stop() }
        let refused = try await Self.request(untrusting, "GET", "/readyz", user: "1")
        #expect(refused.status == 503)
        let storage = try JSONValue(parsing: refused.body)["checks"]?["storage"]?.stringValue ?? ""
        #expect(storage.hasPrefix("TLS failed: certificate of 127.0.0.1 rejected"), "\(storage)")
    }

    @Test("readyz reports the database and the storage endpoint")
    func readiness() async throws {
        let (server, _) = try await Self.start(.sqlite)
        defer { server.stop() }
        let r = try await Self.request(server, "GET", "/readyz", user: "1")
        #expect(r.status == 200)
        let j = try JSONValue(parsing: r.body)
        #expect(j["checks"]?["database"]?.stringValue == "ok")
        #expect(j["checks"]?["storage"]?.stringValue == "ok")
        #expect(j["checks"]?["clock"]?.stringValue == "ok")
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)  // storage endpoint 127.0.0.1:9: nothing there
        let down = try await InProcessApp(environment: env)
        defer { down.stop() }
        let d = try await Self.request(down, "GET", "/readyz", user: "1")
        #expect(d.status == 503)
        let checks = try JSONValue(parsing: d.body)["checks"]
        #expect(checks?["storage"]?.stringValue == "connection failed: connect to 127.0.0.1:9: Connection refused")
        #expect(checks?["clock"]?.stringValue == "unknown", "no answer, so nothing is known of storage's clock")
    }

    @Test("readyz fails when this server's clock is two hours ahead of the storage server's")
    func readinessWithASkewedClock() async throws {
        // The application's clock (every signature, the readiness check's reading) two hours ahead.
        let (env, _) = try await Self.environment(.sqlite)
        let skewed = try await InProcessApp(
            environment: env, nowMillis: { Int64(Date().timeIntervalSince1970 * 1000) + 2 * 3_600_000 })
        defer { skewed.stop() }
        let r = try await Self.request(skewed, "GET", "/readyz", user: "1")
        #expect(r.status == 503)
        let clock = try JSONValue(parsing: r.body)["checks"]?["clock"]?.stringValue ?? ""
        #expect(clock.hasPrefix("this server's clock is 7"), "\(clock)")  // 7200 s give or take a second
        #expect(clock.hasSuffix(" s ahead of the storage server's (allowed: 300 s)"), "\(clock)")
        // RGW refuses requests signed two hours in the future, and says so with its own Date.
        #expect(
            try JSONValue(parsing: r.body)["checks"]?["storage"]?.stringValue
                == "RequestTimeTooSkewed (HTTP 403): this server's clock is too far from storage's")
    }
}

/// Collects results from concurrent work.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, String)] = []
    func add(_ status: Int, _ id: String) {
        lock.lock()
        items.append((status, id))
        lock.unlock()
    }
    var all: [(Int, String)] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

extension ISO8601DateFormatter {
    /// `2026-01-02T03:04:05.678Z`, the records' `createdAt`.
    nonisolated(unsafe) static let millis: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()
}
