import HTTP1
import HTTPServer
import JSON
import Records
import System
import Testing
import UploadsTestSupport

@testable import App

/// What a new user reads when a request is refused, in process (the issue and confirm routes over the
/// in-memory stores of `PresignServiceInProcessTests` and `ImagesServiceInProcessTests`): a size refusal
/// names the type, its limit and the setting that raises it; an unknown type lists the types; a URL
/// that expired unused says so; a mistyped development user header is named in a `Warning`.
@Suite("Error messages in process")
struct ErrorMessagesInProcessTests {
    /// The answer of `method target` on the issue routes, sent with the raw header lines `headers`.
    static func issue(_ method: HTTPMethod, _ target: String, headers: String, body: String = "") throws -> Response {
        let service = try PresignServiceInProcessTests.service(RecordingIntentSink())
        var head = "\(method.name) \(target) HTTP/1.1\r\nHost: presignd\r\n\(headers)"
        if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        guard case .complete(let parsed, _) = RequestParser.parseHead(Array((head + "\r\n").utf8)) else {
            Issue.record("test request does not parse")
            return Response(status: 0)
        }
        let path = String(target.prefix { $0 != "?" })
        let route = try #require(service.routes().first { $0.method == method && $0.template == path })
        let request = Request(
            head: parsed, body: Array(body.utf8), pathParameters: [], requestId: "t", peer: "127.0.0.1:1")
        let answer = PresignServiceInProcessTests.Answer()
        switch route.handler(request) {
        case .respond(let response): return response
        case .blocking(let work): return work()
        case .deferred(let start), .blockingDeferred(let start): start(answer.responder)
        }
        return try #require(answer.response, "the sink stores at once")
    }

    /// The `fieldErrors` member `field` of a 422.
    static func fieldError(_ r: Response, _ field: String) throws -> String? {
        try JSONValue(parsing: r.body)["fieldErrors"]?[field]?.stringValue
    }

    @Test("an unknown type lists the types the route takes")
    func unknownType() throws {
        let byType = try Self.issue(.GET, "/presigned-url?type=PHOTO&ext=jpg", headers: "X-User-Id: 7\r\n")
        #expect(byType.status == 422)
        #expect(
            try Self.fieldError(byType, "type")
                == #"unknown type "PHOTO"; the types are PROFILE, FEED, CHATROOM_PROFILE, CHAT, CHAT_PROFILE"#)
        let byKey = try Self.issue(
            .POST, "/presigned-url", headers: "X-User-Id: 7\r\n",
            body: #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","type":"PHOTO"}"#)
        #expect(byKey.status == 422)
        #expect(
            try Self.fieldError(byKey, "type")
                == #"unknown type "PHOTO"; the types are PROFILE, FEED, CHATROOM_PROFILE, CHAT, CHAT_PROFILE, IMAGE, VIDEO"#
        )
    }

    @Test("a declared size over the type's limit names the type, the limit and the setting")
    func declaredSizeOverLimit() throws {
        let r = try Self.issue(
            .POST, "/presigned-url", headers: "X-User-Id: 7\r\n",
            body: #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","size":20971521}"#)
        #expect(r.status == 422)
        #expect(
            try Self.fieldError(r, "size")
                == "size must be at most 20971520 bytes (20 MiB), the limit of type IMAGE "
                + "(the setting types.IMAGE.maxBytes raises it)")
    }

    @Test("a mistyped user header: still the default user, and the answer names the header in a Warning")
    func lookalikeUserHeader() throws {
        let r = try Self.issue(.GET, "/presigned-url?type=PROFILE&ext=jpg", headers: "X-UserId: 42\r\n")
        #expect(r.status == 200)
        #expect(r.userId == "1")
        #expect(String(decoding: r.body, as: UTF8.self).contains("/profile/1/"))
        #expect(
            r.headers.first { $0.name == "Warning" }?.value
                == #"299 presignd "header X-UserId is not the user header X-User-Id (auth.devUserHeader): "#
                + #"this request is the default user 1""#)
        let right = try Self.issue(.GET, "/presigned-url?type=PROFILE&ext=jpg", headers: "X-User-Id: 42\r\n")
        #expect(right.status == 200 && right.userId == "42")
        #expect(!right.headers.contains { $0.name == "Warning" })
    }

    @Test("confirming a URL that expired unused says it expired (404 IMAGE_NOT_UPLOADED, as before)")
    func expiredUnused() throws {
        let h = try ImagesServiceInProcessTests.Harness()
        let now = ImagesServiceInProcessTests.now
        try h.store.putIntents([
            UploadIntent(
                ownerId: "u1", imageKey: ImagesServiceInProcessTests.imageKey,
                objectKey: ImagesServiceInProcessTests.imageKey, permanentKey: nil, type: "PROFILE", contentType: nil,
                allowedContentTypes: ["image/jpeg"], maxBytes: 1000, createdAtMs: now - 700_000,
                expiresAtMs: now - 100_000)
        ])
        let r = h.confirm()
        #expect(r.status == 404)
        let expiredAt = ISO8601Timestamp.string(epochSeconds: (now - 100_000) / 1000)
        #expect(
            ImagesServiceInProcessTests.text(r)
                == #"{"code":"IMAGE_NOT_UPLOADED","message":"the upload URL expired at \#(expiredAt) and nothing "#
                + #"was uploaded with it; ask for a new one"}"#)
    }

    @Test("an object over its type's limit names the type, the limit and the setting; a declared size says so")
    func objectTooLarge() throws {
        let limit: Int64 = 10 * 1024 * 1024
        let h = try ImagesServiceInProcessTests.Harness()
        try h.issue(maxBytes: limit)
        h.storage.put(
            ImagesServiceInProcessTests.imageKey, bytes: ImagesServiceInProcessTests.image(.png, size: Int(limit) + 1),
            contentType: "image/png")
        let r = h.confirm()
        #expect(r.status == 422)
        #expect(
            ImagesServiceInProcessTests.text(r)
                == #"{"code":"IMAGE_TOO_LARGE","message":"the object is 10485761 bytes (10 MiB); type PROFILE allows "#
                + #"at most 10485760 bytes (10 MiB) (the setting types.PROFILE.maxBytes raises it)"}"#)

        let declared = try ImagesServiceInProcessTests.Harness()
        try declared.issue(maxBytes: 1000)
        declared.storage.put(
            ImagesServiceInProcessTests.imageKey, bytes: ImagesServiceInProcessTests.image(.png, size: 1001),
            contentType: "image/png")
        #expect(
            ImagesServiceInProcessTests.text(declared.confirm())
                == #"{"code":"IMAGE_TOO_LARGE","message":"the object is 1001 bytes; its URL was issued for 1000 bytes, "#
                + #"the size declared for it (type PROFILE)"}"#)
    }

    @Test("a multipart upload whose parts add up to more than its type allows: the sum, the limit, the setting")
    func partsOverLimit() {
        let refusal = CompanionError.upload(.uploadTooLarge(size: 25_165_824, limit: 20_971_520, type: "IMAGE")).parts
        #expect(refusal.status == 400 && refusal.code == "ENTITY_TOO_LARGE")
        #expect(
            refusal.message
                == "s3: the parts add up to 25165824 bytes (24 MiB); type IMAGE allows at most 20971520 bytes (20 MiB) "
                + "(the setting types.IMAGE.maxBytes raises it)")
    }
}
