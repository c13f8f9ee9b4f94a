import AppTestSupport
import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

/// The compatibility profiles and an operator's own routes, end to end: the application in process with
/// bearer tokens, a real RGW, and each records backend. Every answer is decoded with Codable structs that
/// have exactly the apps' DTO fields.
@Suite("Compatibility routes: client P, client B and a third app against RGW", .serialized, .onDispatchThreads)
struct CompatFlowTests {
    // MARK: - The apps' DTOs

    /// Client P's answer to `GET /v1/storage/presigned-url`.
    struct PPresignedURL: Decodable {
        let presignedUrl: String
    }

    /// Client P's answer to `PUT /v2/users/me/profile-image`.
    struct PProfileImage: Decodable {
        struct Data: Decodable { let profileImageUrl: String }
        let code: String
        let data: Data
    }

    /// Client P's error body.
    struct PError: Decodable {
        let code: String
        let message: String
    }

    /// Client B's envelope: `data` is required (the app fails when it is null).
    struct BEnvelope<T: Decodable>: Decodable {
        let success: Bool
        let message: String
        let data: T
    }

    /// Client B's `data` of the signed-URL answer.
    struct BSignedURL: Decodable {
        let signedUrl: String
    }

    /// Client B's error envelope (`data` is null).
    struct BError: Decodable {
        let success: Bool
        let message: String
        let data: String?
    }

    /// What client B reads back of a quest's image (`imageKey` plus a URL).
    struct BQuestImage: Decodable {
        let imageKey: String
        let imageUrl: String
    }

    // MARK: - Plumbing

    static let cdn = "https://cdn.example.test"

    /// Real image bytes (the content check, when it is on, reads them).
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ImageProbeTests/Fixtures/\(name)")
        return Array(try Data(contentsOf: url))
    }

    static func token(_ user: String) -> String {
        "Bearer " + AuthFlowTests.token(sub: user, exp: AuthFlowTests.now + 3600)
    }

    /// The binary with bearer tokens, RGW, `backend`'s store and `extra` settings.
    static func start(
        _ backend: Backend, profiles: String?, arguments: [String] = [], extra: [String: String] = [:],
        nowMillis: (@Sendable () -> Int64)? = nil
    ) async throws -> (InProcessApp, TestEnvironment.S3) {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        var more: [String: String] = [
            "PRESIGN_RECORDS_URL": try await backend.recordsURL(dir: dir), "PRESIGN_AUTH_MODE": "jwt",
            "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256", "PRESIGN_AUTH_HS256_SECRET": AuthFlowTests.secret,
            "PRESIGN_PRESIGN_CDN_BASE_URL": cdn,
        ]
        if let profiles { more["PRESIGN_COMPAT_PROFILES"] = profiles }
        for (k, v) in extra { more[k] = v }
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: more)
        return (try await InProcessApp(environment: env, arguments: arguments, nowMillis: nowMillis), s3)
    }

    /// One request with a bearer token (nil: none) and an optional JSON body.
    static func send(
        _ server: some HTTPTarget, _ method: String, _ target: String, user: String?, body: String? = nil
    ) async throws -> WireResponse {
        let auth = user.map { "Authorization: \(token($0))\r\n" } ?? ""
        return try await server.exchange(
            method, target, host: "api.example.test", headers: "Accept: application/json\r\n" + auth, body: body)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ r: WireResponse) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(r.body))
    }

    /// The caller's records (native `GET /images`).
    static func records(_ server: some HTTPTarget, user: String) async throws -> [JSONValue] {
        let r = try await send(server, "GET", "/images?limit=100", user: user)
        #expect(r.status == 200, "\(r.text)")
        return try JSONValue(parsing: r.body)["items"]?.arrayValue ?? []
    }

    /// Client P: issue as its code does, rebuild the URL with its six parameters, PUT `bytes` as
    /// image/jpeg; the key as it takes it (the URL path minus the bucket).
    static func uploadLikeP(_ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String, bytes: [UInt8])
        async throws -> String
    {
        let r = try await send(server, "GET", "/v1/storage/presigned-url?type=PROFILE&ext=jpeg", user: user)
        #expect(r.status == 200, "\(r.text)")
        let url = try decode(PPresignedURL.self, r).presignedUrl
        #expect(url.contains("X-Amz-SignedHeaders=host&"))
        #expect(url.contains("X-Amz-Expires=600&"))
        let rebuilt = try #require(ClientPFlowTests.rebuildLikeClientP(url))
        let status = try await ClientPFlowTests.put(
            s3, target: rebuilt.path + "?" + rebuilt.query, contentType: "image/jpeg", body: bytes)
        #expect(status == 200)
        let prefix = "/\(s3.bucket)/"
        #expect(rebuilt.path.hasPrefix(prefix))
        return String(rebuilt.path.dropFirst(prefix.count))
    }

    static func confirmLikeP(_ server: some HTTPTarget, user: String?, key: String) async throws -> WireResponse {
        try await send(server, "PUT", "/v2/users/me/profile-image", user: user, body: #"{"profileImageUrl":"\#(key)"}"#)
    }

    /// Client B: `UUID().uuidString` (upper case), the signed URL from its envelope, the PUT with
    /// `Content-Type: image/jpeg`.
    static func uploadLikeB(
        _ server: some HTTPTarget, _ s3: TestEnvironment.S3, user: String, bytes: [UInt8], upload: Bool = true
    ) async throws -> String {
        let uuid = UUID().uuidString
        #expect(uuid == uuid.uppercased())
        let r = try await send(
            server, "POST", "/api/v1/quests/images/signed-url", user: user,
            body: #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200, "\(r.text)")
        let answer = try decode(BEnvelope<BSignedURL>.self, r)
        #expect(answer.success)
        let url = answer.data.signedUrl
        #expect(url.contains("X-Amz-Expires=900&"))
        #expect(url.contains("X-Amz-SignedHeaders=content-type%3Bhost&"))
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        // Flat: the object key is the UUID lower-cased.
        #expect(target.hasPrefix("/\(s3.bucket)/\(uuid.lowercased())?"))
        if upload {
            #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/jpeg", body: bytes) == 200)
        }
        return uuid
    }

    // MARK: - Client P

    @Test(
        "client P: issue, confirm, replace twice (earlier objects gone, one record), repeat",
        arguments: Backend.allCases)
    func clientPReplacesProfileImage(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend, profiles: "clientP")
        defer { server.stop() }
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        var permanents: [String] = []
        var last: WireResponse?
        var lastKey = ""
        for _ in 0..<3 {
            let key = try await Self.uploadLikeP(server, s3, user: "42", bytes: jpeg)
            #expect(key.hasPrefix("delete/profile/42/"))
            let r = try await Self.confirmLikeP(server, user: "42", key: key)
            #expect(r.status == 200, "\(r.text)")
            let answer = try Self.decode(PProfileImage.self, r)
            #expect(answer.code == "2000")
            let permanent = key.replacingOccurrences(of: "delete/profile/42/", with: "profile/42/origin/")
            #expect(answer.data.profileImageUrl == Self.cdn + "/" + permanent)
            #expect(try await ClientPFlowTests.get(s3, key: permanent).1 == jpeg)
            permanents.append(permanent)
            last = r
            lastKey = key
        }
        // The two earlier profile images are gone from RGW; one record is left, the newest.
        #expect(try await ClientPFlowTests.get(s3, key: permanents[0]).0 == 404)
        #expect(try await ClientPFlowTests.get(s3, key: permanents[1]).0 == 404)
        let records = try await Self.records(server, user: "42")
        #expect(records.count == 1)
        #expect(records.first?["key"]?.stringValue == permanents[2])
        // The same confirmation again: the same answer, nothing deleted.
        let again = try await Self.confirmLikeP(server, user: "42", key: lastKey)
        #expect(again.status == 200)
        #expect(again.body == last?.body)
        #expect(try await ClientPFlowTests.get(s3, key: permanents[2]).0 == 200)
        #expect(try await Self.records(server, user: "42").count == 1)
    }

    @Test("client P: the error paths of its table", arguments: Backend.allCases)
    func clientPErrors(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend, profiles: "clientP")
        defer { server.stop() }
        // A value not under delete/: 422 "4220" with the field.
        let outside = try await Self.confirmLikeP(server, user: "42", key: "profile/42/origin/x.jpeg")
        #expect(outside.status == 422)
        let e422 = try Self.decode(PError.self, outside)
        #expect(e422.code == "4220")
        #expect(e422.message == "UNPROCESSABLE_CONTENT")
        #expect(try JSONValue(parsing: outside.body)["fieldErrors"]?["profileImageUrl"]?.stringValue != nil)
        let missing = try await Self.send(server, "PUT", "/v2/users/me/profile-image", user: "42", body: "{}")
        #expect(missing.status == 422)
        #expect(try Self.decode(PError.self, missing).code == "4220")
        // Under delete/ but never issued, and issued but not uploaded: 404 "4040".
        let never = try await Self.confirmLikeP(
            server, user: "42", key: "delete/profile/42/\(UUID().uuidString.lowercased())_1.jpeg")
        #expect(never.status == 404)
        #expect(try Self.decode(PError.self, never).code == "4040")
        let issued = try await Self.send(server, "GET", "/v1/storage/presigned-url?type=PROFILE&ext=jpeg", user: "42")
        let url = try Self.decode(PPresignedURL.self, issued).presignedUrl
        let path = try #require(ClientPFlowTests.rebuildLikeClientP(url)).path
        let notUploaded = try await Self.confirmLikeP(
            server, user: "42", key: String(path.dropFirst(s3.bucket.count + 2)))
        #expect(notUploaded.status == 404)
        let e404 = try Self.decode(PError.self, notUploaded)
        #expect(e404.code == "4040")
        #expect(!e404.message.isEmpty)
        // Another user's upload: 403; a FEED upload is not a profile image: 422.
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        let key = try await Self.uploadLikeP(server, s3, user: "42", bytes: jpeg)
        #expect(try await Self.confirmLikeP(server, user: "43", key: key).status == 403)
        let feed = try await Self.send(server, "GET", "/v1/storage/presigned-url?type=FEED&ext=jpeg", user: "42")
        let feedURL = try Self.decode(PPresignedURL.self, feed).presignedUrl
        let feedPath = try #require(ClientPFlowTests.rebuildLikeClientP(feedURL))
        #expect(
            try await ClientPFlowTests.put(
                s3, target: feedPath.path + "?" + feedPath.query, contentType: "image/jpeg", body: jpeg) == 200)
        let wrongType = try await Self.confirmLikeP(
            server, user: "42", key: String(feedPath.path.dropFirst(s3.bucket.count + 2)))
        #expect(wrongType.status == 422)
        #expect(try Self.decode(PError.self, wrongType).code == "4220")
        // Its issue route: a bad type is 422 "4220" (native shape, the same as its server's).
        let badType = try await Self.send(server, "GET", "/v1/storage/presigned-url?type=AVATAR&ext=jpeg", user: "42")
        #expect(badType.status == 422)
        #expect(try Self.decode(PError.self, badType).code == "4220")
        // No token: 401.
        #expect(try await Self.confirmLikeP(server, user: nil, key: key).status == 401)
    }

    // MARK: - Client B

    @Test("client B: signed URL, save, edit with the same key, edit with a new key", arguments: Backend.allCases)
    func clientBSavesAndEdits(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend, profiles: "clientB")
        defer { server.stop() }
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        let first = try await Self.uploadLikeB(server, s3, user: "7", bytes: jpeg)
        let saved = try await Self.send(
            server, "POST", "/api/v1/quests/12/active", user: "7",
            body: #"{"imageKey":"\#(first)","answer":"a sunny walk","questEmotionState":"HAPPY"}"#)
        #expect(saved.status == 200, "\(saved.text)")
        let savedAnswer = try Self.decode(BEnvelope<BQuestImage>.self, saved)
        #expect(savedAnswer.success)
        #expect(savedAnswer.data.imageKey == first.lowercased())
        #expect(savedAnswer.data.imageUrl == Self.cdn + "/" + first.lowercased())
        var records = try await Self.records(server, user: "7")
        #expect(records.count == 1)
        #expect(records.first?["imageKey"]?.stringValue == first.lowercased())
        #expect(records.first?["metadata"]?["questId"]?.stringValue == "12")

        // An edit that re-sends the recorded key (the image did not change): idempotent 200.
        let same = try await Self.send(
            server, "PATCH", "/api/v1/quests/12/active", user: "7",
            body: #"{"imageKey":"\#(first)","answer":"a sunny walk, edited"}"#)
        #expect(same.status == 200, "\(same.text)")
        #expect(try Self.decode(BEnvelope<BQuestImage>.self, same).data.imageKey == first.lowercased())
        #expect(try await ClientPFlowTests.get(s3, key: first.lowercased()).0 == 200)
        #expect(try await Self.records(server, user: "7").count == 1)

        // An edit with a new image: the new upload is confirmed, the record moves, the old object is gone.
        let png = try Self.fixture("png-rgb-33x17.png")
        let second = try await Self.uploadLikeB(server, s3, user: "7", bytes: png)
        let edited = try await Self.send(
            server, "PATCH", "/api/v1/quests/12/active", user: "7",
            body: #"{"imageKey":"\#(second)","answer":"a rainy walk"}"#)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(try Self.decode(BEnvelope<BQuestImage>.self, edited).data.imageKey == second.lowercased())
        #expect(try await ClientPFlowTests.get(s3, key: first.lowercased()).0 == 404)
        #expect(try await ClientPFlowTests.get(s3, key: second.lowercased()).1 == png)
        records = try await Self.records(server, user: "7")
        #expect(records.count == 1)
        #expect(records.first?["imageKey"]?.stringValue == second.lowercased())
        #expect(records.first?["metadata"]?["questId"]?.stringValue == "12")

        // Another quest is another slot; the first quest's key cannot be moved there.
        let moved = try await Self.send(
            server, "POST", "/api/v1/quests/13/active", user: "7", body: #"{"imageKey":"\#(second)"}"#)
        #expect(moved.status == 409)
        #expect(try Self.decode(BError.self, moved).success == false)
    }

    /// Client B's older builds send `userId: <Int>` instead of a bearer token: dev mode with that header.
    @Test("client B's older builds: the userId header in dev mode issues, saves and owns the record")
    func clientBOlderBuildsWithUserIdHeader() async throws {
        let (server, s3) = try await Self.start(
            .sqlite, profiles: "clientB",
            extra: ["PRESIGN_AUTH_MODE": "dev", "PRESIGN_AUTH_DEV_USER_HEADER": "userId"])
        defer { server.stop() }
        func send(_ method: String, _ target: String, _ body: String?, userId: String) async throws -> WireResponse {
            try await server.exchange(
                method, target, host: "api.example.test", headers: "userId: \(userId)\r\n", body: body)
        }
        let uuid = UUID().uuidString
        let issued = try await send(
            "POST", "/api/v1/quests/images/signed-url", #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#,
            userId: "31")
        #expect(issued.status == 200, "\(issued.text)")
        let url = try Self.decode(BEnvelope<BSignedURL>.self, issued).data.signedUrl
        let target = String(url[try #require(url.range(of: s3.endpoint)).upperBound...])
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/jpeg", body: jpeg) == 200)
        // Another user's header cannot save it; the issuing user's can.
        let theirs = try await send("POST", "/api/v1/quests/4/active", #"{"imageKey":"\#(uuid)"}"#, userId: "32")
        #expect(theirs.status == 403, "\(theirs.text)")
        let saved = try await send("POST", "/api/v1/quests/4/active", #"{"imageKey":"\#(uuid)"}"#, userId: "31")
        #expect(saved.status == 200, "\(saved.text)")
        #expect(try Self.decode(BEnvelope<BQuestImage>.self, saved).data.imageKey == uuid.lowercased())
        let mine = try await send("GET", "/images", nil, userId: "31")
        let items = try JSONValue(parsing: mine.body)["items"]?.arrayValue ?? []
        #expect(items.count == 1)
        #expect(items.first?["imageKey"]?.stringValue == uuid.lowercased())
        // A header that is no user id is the envelope's 400.
        let bad = try await send(
            "POST", "/api/v1/quests/images/signed-url", #"{"contentType":"image/jpeg","imageKey":"\#(UUID())"}"#,
            userId: "x y")
        #expect(bad.status == 400, "\(bad.text)")
        #expect(try Self.decode(BError.self, bad).success == false)
    }

    @Test("client B without a CDN: its read URL is a signed GET for 10 minutes that RGW serves")
    func clientBReadURLLastsTenMinutes() async throws {
        let (server, s3) = try await Self.start(
            .sqlite, profiles: "clientB", extra: ["PRESIGN_PRESIGN_CDN_BASE_URL": ""])
        defer { server.stop() }
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        let key = try await Self.uploadLikeB(server, s3, user: "7", bytes: jpeg)
        let saved = try await Self.send(
            server, "POST", "/api/v1/quests/12/active", user: "7", body: #"{"imageKey":"\#(key)"}"#)
        #expect(saved.status == 200, "\(saved.text)")
        let url = try Self.decode(BEnvelope<BQuestImage>.self, saved).data.imageUrl
        #expect(url.contains("X-Amz-Expires=600&"), "\(url)")
        // The native record's URL lives its window plus presign.readUrlExpiresSeconds (3600 + 3600).
        let native = try await Self.records(server, user: "7").first?["url"]?.stringValue ?? ""
        #expect(native.contains("X-Amz-Expires=7200&"), "\(native)")
        let (host, port) = s3.hostPort
        let target = String(url[try #require(url.range(of: "\(host):\(port)")).upperBound...])
        let got = try await SocketTarget(host: host, port: port).exchange(
            "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n")
        #expect(got.status == 200)
        #expect(got.body == jpeg)
    }

    @Test("client B: every error is its envelope with the HTTP status", arguments: Backend.allCases)
    func clientBErrors(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend, profiles: "clientB")
        defer { server.stop() }
        func expectEnvelope(_ r: WireResponse, _ status: Int, message: String? = nil) throws {
            #expect(r.status == status, "\(r.text)")
            let e = try Self.decode(BError.self, r)
            #expect(e.success == false)
            #expect(e.data == nil)
            #expect(try JSONValue(parsing: r.body)["data"]?.isNull == true)
            if let message { #expect(e.message == message) }
            // The app's decoder of a success fails on it: data is required.
            #expect(throws: (any Error).self) { try Self.decode(BEnvelope<BSignedURL>.self, r) }
        }
        let signedURL = "/api/v1/quests/images/signed-url"
        try expectEnvelope(
            await Self.send(
                server, "POST", signedURL, user: "7", body: #"{"contentType":"image/jpeg","imageKey":"nope"}"#),
            422)
        try expectEnvelope(
            await Self.send(
                server, "POST", signedURL, user: "7",
                body: #"{"contentType":"text/html","imageKey":"\#(UUID().uuidString)"}"#), 422)
        try expectEnvelope(await Self.send(server, "POST", signedURL, user: "7", body: "{not json"), 400)
        let noToken = try await Self.send(
            server, "POST", signedURL, user: nil, body: #"{"contentType":"image/jpeg","imageKey":"\#(UUID())"}"#)
        try expectEnvelope(noToken, 401)
        #expect(noToken.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)

        // Issued but not uploaded: 404 IMAGE_NOT_UPLOADED in the envelope.
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        let pending = try await Self.uploadLikeB(server, s3, user: "7", bytes: jpeg, upload: false)
        try expectEnvelope(
            await Self.send(server, "POST", "/api/v1/quests/3/active", user: "7", body: #"{"imageKey":"\#(pending)"}"#),
            404,
            message: "IMAGE_NOT_UPLOADED")
        try expectEnvelope(
            await Self.send(
                server, "PATCH", "/api/v1/quests/3/active", user: "7", body: #"{"imageKey":"\#(pending)"}"#),
            404, message: "IMAGE_NOT_UPLOADED")
        // Never issued: 404; another user's upload: 403; a bad key: 422.
        try expectEnvelope(
            await Self.send(server, "POST", "/api/v1/quests/3/active", user: "7", body: #"{"imageKey":"\#(UUID())"}"#),
            404)
        let theirs = try await Self.uploadLikeB(server, s3, user: "8", bytes: jpeg)
        try expectEnvelope(
            await Self.send(server, "POST", "/api/v1/quests/3/active", user: "7", body: #"{"imageKey":"\#(theirs)"}"#),
            403)
        try expectEnvelope(
            await Self.send(server, "PATCH", "/api/v1/quests/3/active", user: "7", body: #"{"imageKey":5}"#), 422)
        // A key issued to another user cannot be issued again.
        try expectEnvelope(
            await Self.send(
                server, "POST", signedURL, user: "7", body: #"{"contentType":"image/jpeg","imageKey":"\#(theirs)"}"#),
            409)
    }

    // MARK: - A failed delete after the replacement

    @Test(
        "a replaced object storage will not delete: the record moves, the key waits in the pending deletions, the janitor deletes it"
    )
    func failedDeleteLeavesAPendingDeletion() async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let dir = Temporary.directory()
        let (server, _) = try await Self.start(
            .sqlite, profiles: "clientB",
            extra: [
                "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3",
                "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(proxy.port)", "PRESIGN_S3_PUBLIC_ENDPOINT": s3.endpoint,
                "PRESIGN_S3_MAX_RETRIES": "0",
            ])
        let jpeg = try Self.fixture("jpeg-baseline-64x48.jpg")
        let first = try await Self.uploadLikeB(server, s3, user: "7", bytes: jpeg)
        #expect(
            try await Self.send(
                server, "POST", "/api/v1/quests/5/active", user: "7", body: #"{"imageKey":"\#(first)"}"#
            )
            .status == 200)
        let second = try await Self.uploadLikeB(server, s3, user: "7", bytes: jpeg)
        proxy.setRules([.init(.method("DELETE"), .status(503, code: "SlowDown"))])
        let edited = try await Self.send(
            server, "PATCH", "/api/v1/quests/5/active", user: "7", body: #"{"imageKey":"\#(second)"}"#)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(proxy.faultCount >= 1)
        #expect(await server.log.line(containing: "replaced object not deleted yet") != nil)
        server.stop()
        // The record points at the new object; the old one is an orphan the store still names.
        #expect(try await ClientPFlowTests.get(s3, key: first.lowercased()).0 == 200)
        let store = try RecordStoreFactory.open(url: "sqlite:\(dir)/presignd.sqlite3", poolSize: 1, busyTimeoutMs: 5000)
        try store.migrate()
        #expect(try store.record(imageKey: first.lowercased()) == nil)
        #expect(try store.slotRecord(ownerId: "7", slot: "quest:5")?.imageKey == second.lowercased())
        #expect(try store.pendingObjectDeletions(limit: 10) == [first.lowercased()])

        // The replaced key's intent went before the delete: it cannot be confirmed again.
        // The next server's janitor finds the orphan in the pending deletions and deletes it.
        let (next, _) = try await Self.start(
            .sqlite, profiles: "clientB",
            extra: [
                "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3", "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            ])
        defer { next.stop() }
        let again = try await Self.send(
            next, "POST", "/api/v1/quests/6/active", user: "7", body: #"{"imageKey":"\#(first)"}"#)
        #expect(again.status == 404, "\(again.text)")
        #expect(await next.log.line(containing: "janitor deleted replaced objects") != nil)
        #expect(try await ClientPFlowTests.get(s3, key: first.lowercased()).0 == 404)
        #expect(try await ClientPFlowTests.get(s3, key: second.lowercased()).0 == 200)
        #expect(try store.pendingObjectDeletions(limit: 10).isEmpty)
    }

    // MARK: - Off by default

    @Test("a profile not switched on: its routes are 404, the native ones unchanged")
    func profilesOffByDefault() async throws {
        let (server, _) = try await Self.start(.sqlite, profiles: nil)
        defer { server.stop() }
        #expect(try await Self.confirmLikeP(server, user: "42", key: "delete/profile/42/x.jpeg").status == 404)
        let b = try await Self.send(
            server, "POST", "/api/v1/quests/images/signed-url", user: "7",
            body: #"{"contentType":"image/jpeg","imageKey":"\#(UUID())"}"#)
        #expect(b.status == 404)
        #expect(try await Self.send(server, "PATCH", "/api/v1/quests/1/active", user: "7", body: "{}").status == 404)
        let native = try await Self.send(server, "GET", "/v1/storage/presigned-url?type=PROFILE&ext=jpeg", user: "42")
        #expect(native.status == 200)
        // Only client P's profile on: client B's routes stay 404.
        let (onlyP, _) = try await Self.start(.sqlite, profiles: "clientP")
        defer { onlyP.stop() }
        #expect(try await Self.send(onlyP, "POST", "/api/v1/quests/1/active", user: "7", body: "{}").status == 404)
        #expect(try await Self.confirmLikeP(onlyP, user: "42", key: "x").status == 422)
    }

    // MARK: - A third app (docs/operations.md's worked example)

    /// The example of docs/operations.md, "Compatibility routes", as it is written there.
    static func operationsExample() throws -> String {
        let doc = try String(
            contentsOf: ServerProcess.packageRoot.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        let start = try #require(doc.range(of: "<!-- compat-example-start -->"))
        let end = try #require(doc.range(of: "<!-- compat-example-end -->"))
        var json = String(doc[start.upperBound..<end.lowerBound])
        json = json.replacingOccurrences(of: "```json", with: "").replacingOccurrences(of: "```", with: "")
        return json
    }

    @Test(
        "a third app's routes from docs/operations.md: issue by key, issue by type, replace",
        arguments: Backend.allCases)
    func thirdApp(backend: Backend) async throws {
        let dir = Temporary.directory()
        try Self.operationsExample().write(toFile: dir + "/petcare.json", atomically: true, encoding: .utf8)
        let (server, s3) = try await Self.start(backend, profiles: nil, arguments: ["--config", dir + "/petcare.json"])
        defer { server.stop() }
        let png = try Self.fixture("png-rgb-33x17.png")
        func upload(_ user: String) async throws -> String {
            let photoId = UUID().uuidString
            let r = try await Self.send(
                server, "POST", "/petcare/v1/pets/rex/photo-upload", user: user,
                body: #"{"mimeType":"image/png","photoId":"\#(photoId)","caption":"ignored"}"#)
            #expect(r.status == 200, "\(r.text)")
            let json = try JSONValue(parsing: r.body)
            #expect(json["ok"]?.boolValue == true)
            let url = try #require(json["upload"]?["url"]?.stringValue)
            #expect(url.contains("X-Amz-Expires=300&"))
            #expect(json["upload"]?["headers"]?["Content-Type"]?.stringValue == "image/png")
            #expect(json["upload"]?["expiresAt"]?.stringValue?.hasSuffix("Z") == true)
            let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
            #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/png", body: png) == 200)
            return photoId
        }
        let first = try await upload("5")
        let set1 = try await Self.send(
            server, "PUT", "/petcare/v1/pets/rex/photo", user: "5", body: #"{"photoId":"\#(first)"}"#)
        #expect(set1.status == 200, "\(set1.text)")
        let json1 = try JSONValue(parsing: set1.body)
        #expect(json1["photo"]?["id"]?.stringValue == first.lowercased())
        #expect(json1["photo"]?["pet"]?.stringValue == "rex")
        #expect(json1["photo"]?["bytes"]?.intValue == png.count)
        let second = try await upload("5")
        let set2 = try await Self.send(
            server, "PUT", "/petcare/v1/pets/rex/photo", user: "5", body: #"{"photoId":"\#(second)"}"#)
        #expect(set2.status == 200, "\(set2.text)")
        #expect(try await ClientPFlowTests.get(s3, key: first.lowercased()).0 == 404)
        let records = try await Self.records(server, user: "5")
        #expect(records.count == 1)
        #expect(records.first?["metadata"]?["petId"]?.stringValue == "rex")
        // Its errors: its own shape, with presignd's code in it.
        let notUploaded = try await Self.send(
            server, "PUT", "/petcare/v1/pets/rex/photo", user: "5", body: #"{"photoId":"\#(UUID())"}"#)
        #expect(notUploaded.status == 404)
        let err = try JSONValue(parsing: notUploaded.body)
        #expect(err["ok"]?.boolValue == false)
        #expect(err["error"]?["code"]?.stringValue == "INTENT_NOT_FOUND")
        let bad = try await Self.send(server, "PUT", "/petcare/v1/pets/rex/photo", user: "5", body: #"{"photoId":"x"}"#)
        #expect(bad.status == 400)
        #expect(try JSONValue(parsing: bad.body)["error"]?["fields"]?["photoId"]?.stringValue != nil)
        // Issue by type: a FEED key of the requested extension.
        let banner = try await Self.send(server, "GET", "/petcare/v1/banner-upload?format=png", user: "5")
        #expect(banner.status == 200, "\(banner.text)")
        let bannerKey = try #require(try JSONValue(parsing: banner.body)["upload"]?["key"]?.stringValue)
        #expect(bannerKey.hasPrefix("delete/feed/") && bannerKey.hasSuffix(".png"))
        let badFormat = try await Self.send(server, "GET", "/petcare/v1/banner-upload?format=bmp", user: "5")
        #expect(badFormat.status == 400)
        #expect(try JSONValue(parsing: badFormat.body)["error"]?["fields"]?["format"]?.stringValue != nil)
    }
}
