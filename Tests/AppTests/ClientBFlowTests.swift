import AppTestSupport
import Foundation
import JSON
import Records
import RecordsTestSupport
import TestSupport
import Testing

/// Client B's flow, end to end: the application in process and a real Ceph RGW.
@Suite("Client B: POST /presigned-url against RGW", .serialized, .onDispatchThreads)
struct ClientBFlowTests {
    /// `POST /presigned-url` as user 9 with `body`.
    static func post(_ server: some HTTPTarget, _ body: String, contentType: String? = "application/json")
        async throws -> WireResponse
    {
        try await server.exchange(
            "POST", "/presigned-url", headers: "X-User-Id: 9\r\n", body: body, contentType: contentType)
    }

    @Test("the signed Content-Type uploads; another Content-Type is refused by RGW")
    func signedContentType() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let uuid = UUID().uuidString  // upper case, as UUID().uuidString on iOS
        let r = try await Self.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.header("Cache-Control") == "no-store")
        let json = try JSONValue(parsing: r.body)
        let url = try #require(json["signedUrl"]?.stringValue)
        #expect(json["presignedUrl"]?.stringValue == url)
        #expect(json["key"]?.stringValue == uuid.lowercased())
        #expect(json["headers"]?["Content-Type"]?.stringValue == "image/jpeg")
        #expect(url.contains("X-Amz-SignedHeaders=content-type%3Bhost"))
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        let bytes = Array("jpeg bytes \(uuid)".utf8)
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/png", body: bytes) == 403)
        #expect(try await ClientPFlowTests.put(s3, target: target, contentType: "image/jpeg", body: bytes) == 200)
        let (status, body) = try await ClientPFlowTests.get(s3, key: uuid.lowercased())
        #expect(status == 200)
        #expect(body == bytes)
    }

    @Test("a declared size is signed as content-length and returned in headers")
    func signedSize() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let uuid = UUID().uuidString.lowercased()
        let r = try await Self.post(server, #"{"contentType":"image/png","imageKey":"\#(uuid)","size":5}"#)
        #expect(r.status == 200)
        let json = try JSONValue(parsing: r.body)
        #expect(json["headers"]?["Content-Length"]?.stringValue == "5")
        let url = try #require(json["signedUrl"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        #expect(
            try await ClientPFlowTests.put(s3, target: target, contentType: "image/png", body: Array("12345".utf8))
                == 200)
        #expect(
            try await ClientPFlowTests.put(s3, target: target, contentType: "image/png", body: Array("123456".utf8))
                == 403)
    }

    @Test(
        "a declared MD5 is signed (RGW checks it), a declared SHA-256 is not (RGW ignores it): another body or digest is refused"
    )
    func declaredDigests() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        // Digests of the two bodies from Python's hashlib, base64-encoded.
        let one = Array("integrity body one".utf8)
        let two = Array("integrity body two".utf8)
        let md5One = "Jl+55GiW2vkDAayLd69RIw=="
        let md5Two = "NvF7MvZoRD95zvVDmsKuAQ=="
        let shaOne = "cRc5reHoWp/hr1Nw2YJb0w3TkSKB80ECoevO7HOqpDU="
        let uuid = UUID().uuidString.lowercased()
        let r = try await Self.post(
            server,
            #"{"contentType":"image/jpeg","imageKey":"\#(uuid)","contentMD5":"\#(md5One)","checksumSHA256":"\#(shaOne)"}"#
        )
        #expect(r.status == 200, "\(r.text)")
        let json = try JSONValue(parsing: r.body)
        #expect(json["headers"]?["Content-MD5"]?.stringValue == md5One)
        // RGW 16 ignores x-amz-checksum-sha256 (docs/object-store.md, "Integrity"): signing it would
        // promise nothing, so it is not signed; the confirmation proves the SHA-256 (IntegrityFlowTests).
        #expect(json["headers"]?["x-amz-checksum-sha256"] == nil)
        let url = try #require(json["signedUrl"]?.stringValue)
        #expect(url.contains("X-Amz-SignedHeaders=content-md5%3Bcontent-type%3Bhost&"))
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        func put(_ body: [UInt8], md5: String) async throws -> Int {
            try await ClientPFlowTests.put(
                s3, target: target, contentType: "image/jpeg", body: body, extraHeaders: "Content-MD5: \(md5)\r\n")
        }
        // Another digest than the signed one: the signature does not match.
        #expect(try await put(two, md5: md5Two) == 403)
        // The signed digests with another body: RGW checks Content-MD5 against the bytes (400 BadDigest).
        #expect(try await put(two, md5: md5One) == 400)
        #expect(try await put(one, md5: md5One) == 200)
        let (status, body) = try await ClientPFlowTests.get(s3, key: uuid)
        #expect(status == 200)
        #expect(body == one)
    }

    @Test(
        "bad bodies are 4xx, never 500",
        arguments: [
            (#"{"contentType":"image/jpeg","imageKey":"not-a-uuid"}"#, 422, "imageKey"),
            (#"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6"}"#, 422, "imageKey"),
            (#"{"contentType":"image/jpeg","imageKey":"../../etc/passwd-0000-0000-000000000000"}"#, 422, "imageKey"),
            (#"{"contentType":"text/html","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"}"#, 422, "contentType"),
            (#"{"contentType":5,"imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"}"#, 422, "contentType"),
            (#"{"imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"}"#, 422, "contentType"),
            (#"{"contentType":"image/jpeg"}"#, 422, "imageKey"),
            (
                #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","type":"NOPE"}"#, 422,
                "type"
            ),
            (#"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","size":-1}"#, 422, "size"),
            (
                #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","size":1e999}"#, 422,
                "size"
            ),
            (
                #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","size":99999999999999999999999}"#,
                422, "size"
            ),
            (
                #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","contentMD5":"abc"}"#,
                422,
                "contentMD5"
            ),
            (
                #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","contentMD5":5}"#, 422,
                "contentMD5"
            ),
            (
                #"{"contentType":"image/jpeg","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a","checksumSHA256":"1B2M2Y8AsgTpgAmY7PhCfg=="}"#,
                422, "checksumSHA256"
            ),
            (#"[1,2]"#, 422, "body"),
            (#"{"contentType":"image/jpeg","#, 400, ""),
            (
                #"{"contentType":"image/jpeg","contentType":"image/png","imageKey":"0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"}"#,
                400, ""
            ),
            ("", 400, ""),
        ])
    func badBodies(body: String, status: Int, field: String) async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let r = try await Self.post(server, body)
        #expect(r.status == status, "\(body) -> \(r.status) \(r.text)")
        let json = try JSONValue(parsing: r.body)
        if status == 422 {
            #expect(json["code"]?.stringValue == "4220")
            #expect(json["fieldErrors"]?[field] != nil, "\(r.text)")
        } else {
            #expect(json["code"]?.stringValue == "MALFORMED_JSON")
        }
    }

    @Test("invalid UTF-8, a wrong media type and a body over 64 KiB are 400, 415 and 413")
    func otherBadInput() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let bad: [UInt8] = Array(#"{"contentType":"image/jpeg","imageKey":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)
        let invalid = try await server.exchange(
            Array("POST /presigned-url HTTP/1.1\r\nHost: a\r\nContent-Length: \(bad.count)\r\n\r\n".utf8) + bad)
        #expect(invalid.status == 400)
        #expect(try await Self.post(server, "{}", contentType: "text/plain").status == 415)
        // Refused on the declared length, before any of the body is read (none is sent).
        let big = try await server.exchange("POST /presigned-url HTTP/1.1\r\nHost: a\r\nContent-Length: 70000\r\n\r\n")
        #expect(big.status == 413)
    }

    @Test("every issued URL records an upload intent, written in batches to SQLite")
    func intentsRecorded() async throws {
        let (env, dir) = TestEnvironment.serverEnvironment(s3: nil)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let uuid = UUID().uuidString
        #expect(
            try await Self.post(server, #"{"contentType":"image/heic","imageKey":"\#(uuid)","size":100}"#).status == 200
        )
        let p = try JSONValue(
            parsing: await ClientPFlowTests.issue(server, query: "type=PROFILE&ext=jpg", user: "77").body)
        let pKey = try #require(p["key"]?.stringValue)
        let store = try RecordStoreFactory.open(url: "sqlite:\(dir)/presignd.sqlite3", poolSize: 1, busyTimeoutMs: 5000)
        var b: UploadIntent?
        var pIntent: UploadIntent?
        _ = try await eventually(within: 2) {
            b = try store.intent(imageKey: uuid.lowercased())
            pIntent = try store.intent(imageKey: pKey)
            return b != nil && pIntent != nil
        }
        let bi = try #require(b)
        #expect(bi.ownerId == "9")
        #expect(bi.objectKey == uuid.lowercased())
        #expect(bi.contentType == "image/heic")
        #expect(bi.maxBytes == 100)
        #expect(bi.type == "IMAGE")
        let pi = try #require(pIntent)
        #expect(pi.ownerId == "77")
        #expect(pi.type == "PROFILE")
        #expect(pi.permanentKey?.hasPrefix("profile/77/origin/") == true)
        #expect(pi.expiresAtMs == pi.createdAtMs / 1000 * 1000 + 600_000, "X-Amz-Date (whole seconds) + 600 s")
    }

    @Test("a key already recorded, or issued to another user, gets no new URL (409)")
    func keyReuse() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(s3: nil, extra: ["PRESIGN_S3_VERIFY_UPLOADS": "false"])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let uuid = UUID().uuidString
        let body = #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#
        #expect(try await Self.post(server, body).status == 200)  // user 9
        #expect(try await Self.post(server, body).status == 200, "the same user may ask again")
        let taken = try await server.exchange("POST", "/presigned-url", headers: "X-User-Id: 10\r\n", body: body)
        #expect(taken.status == 409)
        #expect(taken.text.contains("KEY_IN_USE"))
        let confirm = #"{"imageKey":"\#(uuid)"}"#
        #expect(try await server.exchange("POST", "/images", headers: "X-User-Id: 9\r\n", body: confirm).status == 201)
        let again = try await Self.post(server, body)
        #expect(again.status == 409)
        #expect(again.text.contains("KEY_ALREADY_RECORDED"))
    }

    @Test("presign.signIfNoneMatch signs If-None-Match: * and the upload must send it")
    func ifNoneMatch() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_PRESIGN_SIGN_IF_NONE_MATCH": "true"])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let uuid = UUID().uuidString.lowercased()
        let r = try await Self.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200)
        let json = try JSONValue(parsing: r.body)
        #expect(json["headers"]?["If-None-Match"]?.stringValue == "*")
        let url = try #require(json["signedUrl"]?.stringValue)
        #expect(url.contains("X-Amz-SignedHeaders=content-type%3Bhost%3Bif-none-match"))
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        #expect(
            try await ClientPFlowTests.put(s3, target: target, contentType: "image/jpeg", body: [1]) == 403,
            "without the signed header the store refuses")
        #expect(
            try await ClientPFlowTests.put(
                s3, target: target, contentType: "image/jpeg", body: [1], extraHeaders: "If-None-Match: *\r\n") == 200)
    }
}
