import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// The server's own errors on the compatibility routes' paths (413, 400 of a broken chunked body,
/// 408, 405, 404 of a bad parameter, 431, 501) and the gate's refusals (401, 429) come in the apps'
/// envelopes; client P's issue route answers its errors as its server did (a signing failure: 400
/// `"4001"`); native routes keep presignd's bytes. The application in process with both profiles on,
/// its requests as raw bytes through the server's parser and request plan, answers decoded with the
/// apps' DTOs (`CompatFlowTests`).
@Suite("Compatibility routes: the server's own errors in the apps' envelopes", .serialized)
struct CompatServerErrorTests {
    typealias BError = CompatFlowTests.BError
    typealias PError = CompatFlowTests.PError

    /// A raw request (`text` is sent as it is).
    static func raw(_ server: some HTTPTarget, _ text: String) async throws -> WireResponse {
        try await server.exchange(text)
    }

    static func head(_ method: String, _ target: String, user: String? = "7", _ lines: [String] = []) -> String {
        var h = "\(method) \(target) HTTP/1.1\r\nHost: api.example.test\r\n"
        if let user { h += "Authorization: \(CompatFlowTests.token(user))\r\n" }
        for l in lines { h += l + "\r\n" }
        return h + "\r\n"
    }

    /// Client B's error envelope, as its app decodes it: `success` false, `data` null (so its success
    /// decoder fails), the HTTP status.
    static func expectB(
        _ r: WireResponse, _ status: Int, message: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(r.status == status, "\(r.text)", sourceLocation: sourceLocation)
        let e = try CompatFlowTests.decode(BError.self, r)
        #expect(e.success == false, sourceLocation: sourceLocation)
        #expect(try JSONValue(parsing: r.body)["data"]?.isNull == true, sourceLocation: sourceLocation)
        #expect(
            try JSONValue(parsing: r.body).objectValue?.keys == ["success", "message", "data"],
            sourceLocation: sourceLocation)
        if let message { #expect(e.message == message, sourceLocation: sourceLocation) }
        #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try CompatFlowTests.decode(CompatFlowTests.BEnvelope<CompatFlowTests.BSignedURL>.self, r)
        }
        #expect(r.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
    }

    /// Client P's error body: `{"code":"<code>","message":…}` with the HTTP status.
    static func expectP(
        _ r: WireResponse, _ status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(r.status == status, "\(r.text)", sourceLocation: sourceLocation)
        let e = try CompatFlowTests.decode(PError.self, r)
        #expect(e.code == code, "\(r.text)", sourceLocation: sourceLocation)
        #expect(!e.message.isEmpty, sourceLocation: sourceLocation)
        if code != "4220" {
            #expect(
                try JSONValue(parsing: r.body).objectValue?.keys == ["code", "message"], sourceLocation: sourceLocation)
        }
    }

    static let signedURL = "/api/v1/quests/images/signed-url"
    static let profileImage = "/v2/users/me/profile-image"
    static let pIssue = "/v1/storage/presigned-url"

    @Test("client B: 413 (declared and chunked), broken chunks, 405, bad parameters, 415, 431, 501, 408")
    func clientBServerErrors() async throws {
        let (server, _) = try await CompatFlowTests.start(
            .sqlite, profiles: "clientP,clientB", extra: ["PRESIGN_SERVER_BODY_TIMEOUT_MS": "300"])
        defer { server.stop() }
        let json = "Content-Type: application/json"
        // A body over the route's limit (64 KiB), declared: answered before a byte of it is read.
        try Self.expectB(
            await Self.raw(server, Self.head("POST", Self.signedURL, [json, "Content-Length: 70000"])), 413,
            message: "request body too large")
        try Self.expectB(
            await Self.raw(server, Self.head("PATCH", "/api/v1/quests/12/active", [json, "Content-Length: 70000"])), 413
        )
        // ... and chunked: one chunk of 128 KiB.
        try Self.expectB(
            await Self.raw(
                server,
                Self.head("POST", "/api/v1/quests/12/active", [json, "Transfer-Encoding: chunked"]) + "20000\r\n"
                    + String(repeating: "x", count: 1000)), 413)
        // A chunked body that is not chunked: 400.
        try Self.expectB(
            await Self.raw(
                server, Self.head("POST", Self.signedURL, [json, "Transfer-Encoding: chunked"]) + "zz\r\n\r\n"),
            400)
        // A method the path does not have: 405 with Allow.
        let wrongMethod = try await Self.raw(server, Self.head("GET", "/api/v1/quests/12/active"))
        try Self.expectB(wrongMethod, 405)
        #expect(wrongMethod.header("Allow") == "POST, PATCH")
        try Self.expectB(await Self.raw(server, Self.head("DELETE", Self.signedURL)), 405)
        // The route's path with an empty or undecodable parameter: 404 in the envelope.
        try Self.expectB(
            await Self.raw(
                server,
                Self.head("POST", "/api/v1/quests//active", [json, "Content-Length: 2"])
                    + "{}"), 404)
        try Self.expectB(
            await Self.raw(
                server,
                Self.head("POST", "/api/v1/quests/%ZZ/active", [json, "Content-Length: 2"])
                    + "{}"), 404)
        // Another media type and a body that does not parse: 415 and 400 (the handler's own checks).
        try Self.expectB(
            await Self.raw(
                server, Self.head("POST", Self.signedURL, ["Content-Type: text/plain", "Content-Length: 2"]) + "{}"),
            415)
        try Self.expectB(
            await Self.raw(server, Self.head("POST", Self.signedURL, [json, "Content-Length: 1"]) + "{"), 400)
        // A head too large to parse, whose request line names the route: 431.
        let big = "X-Padding: " + String(repeating: "p", count: 9000)
        try Self.expectB(await Self.raw(server, Self.head("POST", Self.signedURL, [big, "Content-Length: 0"])), 431)
        // A method the server does not know: 501.
        let unknown = try await Self.raw(server, Self.head("BREW", "/api/v1/quests/12/active"))
        try Self.expectB(unknown, 501)
        // A body that does not come in time: 408 (the answer is the event waited for).
        try Self.expectB(
            await Self.raw(
                server, Self.head("POST", "/api/v1/quests/12/active", [json, "Content-Length: 40"]) + "{\"imag"),
            408, message: "request body not received in time")
    }

    @Test("client P: its confirm route's server errors and refusals are {code: <status>0, message}")
    func clientPServerErrors() async throws {
        let (server, _) = try await CompatFlowTests.start(.sqlite, profiles: "clientP,clientB")
        defer { server.stop() }
        let json = "Content-Type: application/json"
        try Self.expectP(
            await Self.raw(server, Self.head("PUT", Self.profileImage, [json, "Content-Length: 70000"])), 413,
            code: "4130")
        let wrongMethod = try await Self.raw(server, Self.head("DELETE", Self.profileImage))
        try Self.expectP(wrongMethod, 405, code: "4050")
        #expect(wrongMethod.header("Allow") == "PUT")
        try Self.expectP(
            await Self.raw(
                server, Self.head("PUT", Self.profileImage, ["Content-Type: text/plain", "Content-Length: 2"]) + "{}"),
            415, code: "4150")
        try Self.expectP(
            await Self.raw(server, Self.head("PUT", Self.profileImage, [json, "Content-Length: 1"]) + "{"), 400,
            code: "4000")
        let noToken = try await Self.raw(
            server, Self.head("PUT", Self.profileImage, user: nil, [json, "Content-Length: 2"]) + "{}")
        try Self.expectP(noToken, 401, code: "4010")
        #expect(noToken.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        // The table's own codes stay: 422 "4220" with fieldErrors, 404 "4040".
        let outside = try await CompatFlowTests.confirmLikeP(server, user: "42", key: "profile/42/origin/x.jpeg")
        try Self.expectP(outside, 422, code: "4220")
        #expect(try JSONValue(parsing: outside.body)["fieldErrors"]?["profileImageUrl"]?.stringValue != nil)
        let never = try await CompatFlowTests.confirmLikeP(
            server, user: "42", key: "delete/profile/42/\(UUID().uuidString.lowercased())_1.jpeg")
        try Self.expectP(never, 404, code: "4040")
    }

    @Test("client P's issue route with the profile on: the same success, its errors in P's shapes")
    func clientPIssueRoute() async throws {
        let (server, _) = try await CompatFlowTests.start(.sqlite, profiles: "clientP,clientB")
        defer { server.stop() }
        let (plain, _) = try await CompatFlowTests.start(.sqlite, profiles: nil)
        defer { plain.stop() }
        let ok = try await CompatFlowTests.send(server, "GET", Self.pIssue + "?type=PROFILE&ext=jpeg", user: "42")
        #expect(ok.status == 200, "\(ok.text)")
        #expect(try CompatFlowTests.decode(CompatFlowTests.PPresignedURL.self, ok).presignedUrl.contains("X-Amz-"))
        #expect(ok.header("Cache-Control") == "no-store")
        // The 422 is the native one to the byte (client P's server's shape already).
        let badType = try await CompatFlowTests.send(server, "GET", Self.pIssue + "?type=AVATAR&ext=jpeg", user: "42")
        try Self.expectP(badType, 422, code: "4220")
        let nativeBadType = try await CompatFlowTests.send(
            plain, "GET", Self.pIssue + "?type=AVATAR&ext=jpeg", user: "42")
        #expect(badType.body == nativeBadType.body)
        // Refusals and the server's own errors on the path.
        let noToken = try await Self.raw(server, Self.head("GET", Self.pIssue + "?type=PROFILE&ext=jpeg", user: nil))
        try Self.expectP(noToken, 401, code: "4010")
        #expect(noToken.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
        let nativeNoToken = try await Self.raw(
            plain, Self.head("GET", Self.pIssue + "?type=PROFILE&ext=jpeg", user: nil))
        #expect(try CompatFlowTests.decode(PError.self, nativeNoToken).code == "UNAUTHORIZED", "off: unchanged")
        try Self.expectP(await Self.raw(server, Self.head("PUT", Self.pIssue)), 405, code: "4050")
        try Self.expectP(
            await Self.raw(
                server, Self.head("GET", Self.pIssue + "?type=PROFILE&ext=jpeg", ["Content-Length: 3"]) + "abc"),
            413, code: "4130")
        // A request target over the parser's 8 KiB: 414, its path still client P's.
        let long = Self.pIssue + "?type=PROFILE&ext=jpeg&pad=" + String(repeating: "a", count: 9000)
        try Self.expectP(await Self.raw(server, Self.head("GET", long)), 414, code: "4140")
        let malformed = try await CompatFlowTests.send(server, "GET", Self.pIssue + "?type=%ZZ&ext=jpeg", user: "42")
        try Self.expectP(malformed, 400, code: "4000")
        // POST on the same path is native (not client P's): presignd's codes.
        let post = try await CompatFlowTests.send(server, "POST", Self.pIssue, user: "42", body: "{")
        #expect(try CompatFlowTests.decode(PError.self, post).code == "MALFORMED_JSON")
    }

    @Test("rate limits: client B's envelope and client P's 4290, with Retry-After")
    func rateLimited() async throws {
        let (server, _) = try await CompatFlowTests.start(
            .sqlite, profiles: "clientP,clientB",
            extra: [
                "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "6",
                "PRESIGN_LIMITS_CONFIRM_PER_USER_PER_MINUTE": "6", "PRESIGN_LIMITS_BURST": "20",
            ], nowMillis: InProcessApp.frozenClock())
        defer { server.stop() }
        // A bucket of 2 per user and scope: the third request is refused.
        func three(_ send: () async throws -> WireResponse) async throws -> WireResponse {
            for _ in 0..<2 { #expect(try await send().status != 429) }
            return try await send()
        }
        let b = try await three {
            try await CompatFlowTests.send(
                server, "POST", Self.signedURL, user: "61",
                body: #"{"contentType":"image/jpeg","imageKey":"\#(UUID())"}"#)
        }
        try Self.expectB(b, 429)
        #expect(Int(b.header("Retry-After") ?? "") ?? 0 >= 1)
        let pConfirm = try await three { try await CompatFlowTests.confirmLikeP(server, user: "62", key: "delete/x") }
        try Self.expectP(pConfirm, 429, code: "4290")
        #expect(Int(pConfirm.header("Retry-After") ?? "") ?? 0 >= 1)
        let pIssue = try await three {
            try await CompatFlowTests.send(server, "GET", Self.pIssue + "?type=PROFILE&ext=jpeg", user: "63")
        }
        try Self.expectP(pIssue, 429, code: "4290")
        #expect(Int(pIssue.header("Retry-After") ?? "") ?? 0 >= 1)
    }

    /// A PROFILE key template that renders more than S3's 1024 bytes for a 64-byte user id: the
    /// signer refuses the key, so issuing fails to sign.
    static let unsignableProfile = """
        {"types": {"PROFILE": {"keyTemplate": "delete/profile/\(String(repeating: "{userId}/", count: 16)){uuid}_{epochMillis}.{ext}"}}}
        """

    @Test("a URL that cannot be signed: client P's 400 \"4001\" with the profile on, 500 SIGNING_FAILED without")
    func signingFailure() async throws {
        let dir = Temporary.directory()
        try Self.unsignableProfile.write(toFile: dir + "/types.json", atomically: true, encoding: .utf8)
        let longUser = "u" + String(repeating: "1", count: 63)
        let query = Self.pIssue + "?type=PROFILE&ext=jpeg"
        let (server, _) = try await CompatFlowTests.start(
            .sqlite, profiles: "clientP,clientB", arguments: ["--config", dir + "/types.json"])
        defer { server.stop() }
        try Self.expectP(await CompatFlowTests.send(server, "GET", query, user: longUser), 400, code: "4001")
        #expect(try await CompatFlowTests.send(server, "GET", query, user: "42").status == 200, "a short user id signs")
        let (plain, _) = try await CompatFlowTests.start(
            .sqlite, profiles: nil, arguments: ["--config", dir + "/types.json"])
        defer { plain.stop() }
        let native = try await CompatFlowTests.send(plain, "GET", query, user: longUser)
        #expect(native.status == 500)
        #expect(try CompatFlowTests.decode(PError.self, native).code == "SIGNING_FAILED")
        // GET /presigned-url is presignd's own route: unchanged with the profile on.
        let own = try await CompatFlowTests.send(server, "GET", "/presigned-url?type=PROFILE&ext=jpeg", user: longUser)
        #expect(own.status == 500)
        #expect(try CompatFlowTests.decode(PError.self, own).code == "SIGNING_FAILED")
    }

    @Test("native routes: the server's own errors are the same bytes with both profiles on")
    func nativeUnchanged() async throws {
        let (server, _) = try await CompatFlowTests.start(.sqlite, profiles: "clientP,clientB")
        defer { server.stop() }
        let (plain, _) = try await CompatFlowTests.start(.sqlite, profiles: nil)
        defer { plain.stop() }
        let requests = [
            Self.head("POST", "/presigned-url", ["Content-Type: application/json", "Content-Length: 70000"]),
            Self.head("PUT", "/images"),
            Self.head("GET", "/no/such/route"),
            Self.head("GET", "/api/v1/quests/12/active/extra"),
            Self.head("POST", "/images", ["Content-Type: application/json", "Transfer-Encoding: chunked"])
                + "zz\r\n\r\n",
            Self.head("GET", "/images", ["X-Padding: " + String(repeating: "p", count: 9000)]),
            Self.head("BREW", "/images"),
            Self.head("POST", "/images", ["Content-Type: text/plain", "Content-Length: 2"]) + "{}",
        ]
        for request in requests {
            let on = try await Self.raw(server, request)
            let off = try await Self.raw(plain, request)
            #expect(on.status == off.status, "\(request.prefix(40))")
            #expect(on.body == off.body, "\(request.prefix(40)): \(on.text) vs \(off.text)")
            let names = { (r: WireResponse) in
                r.headers.map { $0.name.lowercased() }.filter { $0 != "date" && $0 != "x-request-id" }
            }
            #expect(names(on) == names(off), "\(request.prefix(40))")
            #expect(on.header("Content-Type") == off.header("Content-Type"))
            #expect(on.header("Allow") == off.header("Allow"))
        }
    }
}
