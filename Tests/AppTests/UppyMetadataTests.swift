import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

@testable import App

/// Uppy's file metadata kept on the record: given to `POST /s3/multipart` or `GET /s3/params`, carried
/// by the intent (through a restart of the server, so from the records store), and shown by
/// `GET /images/{id}`; `uploadType` is not kept; bad metadata is a 400 `{"error"}`. The application in
/// process (restarted as a new one on the same store), real RGW, SQLite and PostgreSQL.
@Suite("Uppy routes: metadata on the record", .serialized)
struct UppyMetadataTests {
    typealias U = UppyFlowTests

    /// The `metadata` of the record `id` as `GET /images/{id}` shows it: its members in order.
    static func recordMetadata(_ server: some HTTPTarget, id: String, user: String = "42") async throws
        -> [(String, String)]
    {
        let r = try await U.call(server, "GET", "/images/\(id)", user: user)
        #expect(r.status == 200, "\(r.text)")
        let object = try #require(try U.json(r)["metadata"]?.objectValue)
        return object.map { ($0.key, $0.value.stringValue ?? "<not a string>") }
    }

    /// Creates an upload with `metadata` (a JSON object's text), uploads one small part, completes it;
    /// the completion's answer. The server is restarted between creation and completion when `restart`.
    static func upload(
        _ server: inout InProcessApp, _ s3: TestEnvironment.S3, metadata: String,
        restart: (() async throws -> InProcessApp)?
    ) async throws -> JSONValue {
        let created = try await U.call(
            server, "POST", "/s3/multipart",
            body: #"{"filename":"Vidéo de vacances.jpg","type":"image/jpeg","metadata":\#(metadata)}"#)
        #expect(created.status == 200, "\(created.text)")
        let c = try U.json(created)
        let key = try #require(c["key"]?.stringValue)
        let uploadId = try #require(c["uploadId"]?.stringValue)
        if let restart {
            server.stop()
            server = try await restart()
        }
        let base = "/s3/multipart/\(U.q(uploadId))"
        let part = try await U.call(server, "GET", "\(base)/1?key=\(U.q(key))")
        #expect(part.status == 200, "\(part.text)")
        let url = try #require(try U.json(part)["url"]?.stringValue)
        let (status, etag) = try await U.put(s3, url: url, bytes: try U.payload(256 * 1024))
        #expect(status == 200)
        let body = #"{"parts":[{"PartNumber":1,"ETag":\#(try #require(etag).debugDescription)}]}"#
        let done = try await U.call(server, "POST", "\(base)/complete?key=\(U.q(key))", body: body)
        #expect(done.status == 200, "\(done.text)")
        return try U.json(done)
    }

    @Test(
        "multipart: the metadata but uploadType is on the record, in order, byte for byte, across a restart",
        arguments: Backend.allCases)
    func multipartMetadata(backend: Backend) async throws {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_UPPY_ENABLED": "true", "PRESIGN_RECORDS_URL": try await backend.recordsURL(dir: dir),
            ])
        var server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let metadata =
            #"{"name":"Vidéo de vacances.jpg","type":"image/jpeg","uploadType":"IMAGE","chatroomId":"12","caption":"안녕 🌏 \"quoted\"\nsecond line","e\u0301":"NFD key"}"#
        let done = try await Self.upload(
            &server, s3, metadata: metadata, restart: { try await InProcessApp(environment: env) })
        let expected: [(String, String)] = [
            ("name", "Vidéo de vacances.jpg"), ("type", "image/jpeg"), ("chatroomId", "12"),
            ("caption", "안녕 🌏 \"quoted\"\nsecond line"), ("e\u{301}", "NFD key"),
        ]
        let shown = try #require(done["record"]?["metadata"]?.objectValue)
        #expect(shown.map(\.key).map { Array($0.utf8) } == expected.map { Array($0.0.utf8) })
        let id = try #require(done["record"]?["id"]?.stringValue)
        let read = try await Self.recordMetadata(server, id: id)
        #expect(read.map { Array($0.0.utf8) } == expected.map { Array($0.0.utf8) })
        #expect(read.map { Array($0.1.utf8) } == expected.map { Array($0.1.utf8) })
        // Without metadata the record's is `{}`, as POST /images makes it.
        let plain = try await Self.upload(&server, s3, metadata: "{}", restart: nil)
        #expect(plain["record"]?["metadata"]?.objectValue?.isEmpty == true)
        let onlyControl = try await Self.upload(&server, s3, metadata: #"{"uploadType":"IMAGE"}"#, restart: nil)
        #expect(onlyControl["record"]?["metadata"]?.objectValue?.isEmpty == true)
    }

    @Test(
        "params: metadata[k]=v is on the record POST /images makes, unless the confirmation brings its own",
        arguments: Backend.allCases)
    func paramsMetadata(backend: Backend) async throws {
        let (server, s3) = try await U.start(backend)
        defer { server.stop() }
        func issueAndUpload(_ query: String) async throws -> String {
            let r = try await U.call(server, "GET", "/s3/params?filename=dog.jpg&type=image%2Fjpeg&" + query)
            #expect(r.status == 200, "\(r.text)")
            let j = try U.json(r)
            let (status, _) = try await U.put(
                s3, url: try #require(j["url"]?.stringValue), bytes: try ImageFixture.bytes("jpeg-baseline-64x48.jpg"),
                contentType: "image/jpeg")
            #expect(status == 200)
            return try #require(j["key"]?.stringValue)
        }
        let key = try await issueAndUpload(
            "metadata%5Bname%5D=dog.jpg&metadata[album]=Summer%202026&metadata[uploadType]=IMAGE")
        let confirmed = try await U.call(server, "POST", "/images", body: #"{"imageKey":"\#(key)"}"#)
        #expect(confirmed.status == 201, "\(confirmed.text)")
        let id = try #require(try U.json(confirmed)["id"]?.stringValue)
        let read = try await Self.recordMetadata(server, id: id)
        #expect(read.map(\.0) == ["name", "album"])
        #expect(read.map(\.1) == ["dog.jpg", "Summer 2026"])
        // The confirmation's own metadata wins over the upload's.
        let other = try await issueAndUpload("metadata[name]=cat.jpg")
        let own = try await U.call(server, "POST", "/images", body: #"{"imageKey":"\#(other)","metadata":{"n":1}}"#)
        #expect(own.status == 201, "\(own.text)")
        let ownId = try #require(try U.json(own)["id"]?.stringValue)
        let ownRecord = try await U.call(server, "GET", "/images/\(ownId)")
        #expect(try U.json(ownRecord)["metadata"]?["n"]?.intValue == 1)
        #expect(try U.json(ownRecord)["metadata"]?["name"] == nil)
    }

    @Test("bad metadata is 400 {\"error\"} on both routes; metadata at the limits passes")
    func badMetadata() async throws {
        let (server, _) = try await U.start(.sqlite)
        defer { server.stop() }
        func body(_ metadata: String) -> String { #"{"filename":"a.jpg","type":"image/jpeg","metadata":\#(metadata)}"# }
        let many = (0...MultipartRules.maxMetadataEntries).map { #""k\#($0)":"v""# }.joined(separator: ",")
        let long = String(repeating: "x", count: MultipartRules.maxMetadataValueBytes + 1)
        let longKey = String(repeating: "k", count: MultipartRules.maxMetadataKeyBytes + 1)
        // 16 entries of 1,024 bytes: each within its limits, over 16 KiB together.
        let big = (0..<16).map { #""k\#($0)":"\#(String(repeating: "y", count: 1024))""# }.joined(separator: ",")
        var cases: [(String, String?)] = [
            ("/s3/multipart", body("[]")),
            ("/s3/multipart", body(#""name""#)),
            ("/s3/multipart", body(#"{"size":12}"#)),
            ("/s3/multipart", body(#"{"relativePath":null}"#)),
            ("/s3/multipart", body(#"{"nested":{"a":"b"}}"#)),
            ("/s3/multipart", body(#"{"list":["a"]}"#)),
            ("/s3/multipart", body(#"{"":"empty key"}"#)),
            ("/s3/multipart", body(#"{"tab\tkey":"v"}"#)),
            ("/s3/multipart", body(#"{"\#(longKey)":"v"}"#)),
            ("/s3/multipart", body(#"{"k":"\#(long)"}"#)),
            ("/s3/multipart", body("{\(many)}")),
            ("/s3/multipart", body("{\(big)}")),
        ]
        let p = "/s3/params?filename=a.jpg&type=image%2Fjpeg"
        for q in [
            "metadata[a]=1&metadata[a]=2", "metadata[]=x", "metadata[\(longKey)]=v", "metadata[k]=\(long)",
            "metadata[a%01]=v",
        ] {
            cases.append((p + "&" + q, nil))
        }
        for (path, b) in cases {
            let r = try await U.call(server, b == nil ? "GET" : "POST", path, body: b)
            #expect(r.status == 400, "\(path.prefix(100)) \(b?.prefix(100) ?? ""): \(r.status) \(r.text)")
            #expect(r.header("Content-Type") == "application/json")
            #expect(try U.json(r)["error"]?.stringValue?.isEmpty == false)
            #expect(try U.json(r)["code"]?.stringValue == "BAD_REQUEST")
        }
        // At the limits it passes.
        let atLimits = (0..<MultipartRules.maxMetadataEntries).map { #""k\#($0)":"v""# }.joined(separator: ",")
        let ok = try await U.call(server, "POST", "/s3/multipart", body: body("{\(atLimits)}"))
        #expect(ok.status == 200, "\(ok.text)")
        let edge = try await U.call(
            server, "POST", "/s3/multipart",
            body: body(#"{"\#(String(longKey.dropLast()))":"\#(String(long.dropLast()))"}"#))
        #expect(edge.status == 200, "\(edge.text)")
    }
}
