import AppTestSupport
import Crypto
import Foundation
import JSON
import TestSupport
import Testing

/// Integrity end to end (issue 37; docs/object-store.md, "Integrity"): the size and digests a client
/// declares at issue are signed where RGW checks them, proven at `POST /images` before the record is
/// made, recorded as `sha256` and found by it; the application in process against the real RGW.
@Suite("Integrity: declared digests signed, proven, recorded (RGW)", .serialized, .onDispatchThreads)
struct IntegrityFlowTests {
    /// `SUM` records without the content check (the bytes are whatever the test sends); `DEDUP` the same
    /// with `dedup`; `COMPUTED` computes the SHA-256 of uploads that declare none.
    static let config = """
        {"types": {
          "SUM": {"contentTypes": ["image/jpeg"], "keyTemplate": "sum/{imageKey}", "maxBytes": 1048576,
                  "contentCheck": false},
          "DEDUP": {"contentTypes": ["image/jpeg"], "keyTemplate": "dedup/{imageKey}", "maxBytes": 1048576,
                    "contentCheck": false, "dedup": true},
          "COMPUTED": {"contentTypes": ["image/jpeg"], "keyTemplate": "computed/{imageKey}", "maxBytes": 1048576,
                       "contentCheck": false, "computeSha256": true}}}
        """

    /// The application on RGW with `config`, `backend`'s store and `extra` settings.
    static func start(_ backend: Backend = .sqlite, extra: [String: String] = [:]) async throws -> (
        InProcessApp, TestEnvironment.S3
    ) {
        let s3 = try TestEnvironment.s3()
        let dir = Temporary.directory()
        try config.write(toFile: dir + "/config.json", atomically: true, encoding: .utf8)
        var more = ["PRESIGN_RECORDS_URL": try await backend.recordsURL(dir: dir), "PRESIGN_UPPY_ENABLED": "true"]
        for (k, v) in extra { more[k] = v }
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: more)
        return (try await InProcessApp(environment: env, arguments: ["--config", dir + "/config.json"]), s3)
    }

    static func sha256(_ bytes: [UInt8]) -> String { Base64.encode(SHA256.hash(bytes).bytes) }
    static func md5(_ bytes: [UInt8]) -> String { Base64.encode(MD5.hash(bytes)) }
    /// A query value: base64's `+` and `/` and `=` escaped.
    static func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }

    /// `count` bytes of a pattern of `seed`.
    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 9 &+ Int(seed)) }
    }

    static func call(
        _ server: some HTTPTarget, _ method: String, _ path: String, user: String = "5", body: String? = nil
    )
        async throws -> WireResponse
    {
        try await server.exchange(method, path, headers: "X-User-Id: \(user)\r\n", body: body)
    }

    /// `POST /presigned-url` for `type` declaring `members` (JSON text of members, e.g. `"size":3`):
    /// (image key, URL, the headers to send).
    static func issue(_ server: some HTTPTarget, type: String, members: String, user: String = "5") async throws -> (
        key: String, url: String, headers: [(String, String)]
    ) {
        let uuid = UUID().uuidString.lowercased()
        let body =
            #"{"type":"\#(type)","contentType":"image/jpeg","imageKey":"\#(uuid)"\#(members.isEmpty ? "" : ",")\#(members)}"#
        let r = try await call(server, "POST", "/presigned-url", user: user, body: body)
        try #require(r.status == 200, "\(r.text)")
        let json = try JSONValue(parsing: r.body)
        let headers = try #require(json["headers"]?.objectValue).members.map { ($0.key, $0.value.stringValue ?? "") }
        return (uuid, try #require(json["signedUrl"]?.stringValue), headers)
    }

    /// PUTs `body` to a presigned URL on RGW with exactly `headers` (Content-Length from the body when
    /// they hold none): RGW's answer.
    static func put(_ s3: TestEnvironment.S3, url: String, headers: [(String, String)], body: [UInt8]) async throws
        -> WireResponse
    {
        let (host, port) = s3.hostPort
        let target = String(url[try #require(url.range(of: "\(host):\(port)")).upperBound...])
        var head = "PUT \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (n, v) in headers { head += "\(n): \(v)\r\n" }
        if !headers.contains(where: { $0.0.lowercased() == "content-length" }) {
            head += "Content-Length: \(body.count)\r\n"
        }
        return try await SocketTarget(host: host, port: port).exchange(
            Array((head + "Connection: close\r\n\r\n").utf8) + body)
    }

    static func confirm(_ server: some HTTPTarget, _ key: String, user: String = "5") async throws -> WireResponse {
        try await call(server, "POST", "/images", user: user, body: #"{"imageKey":"\#(key)"}"#)
    }

    /// The ids of the caller's records listed by `query`.
    static func listed(_ server: some HTTPTarget, _ query: String, user: String = "5") async throws -> [String] {
        let r = try await call(server, "GET", "/images?\(query)", user: user)
        #expect(r.status == 200, "\(r.text)")
        return try JSONValue(parsing: r.body)["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    @Test("a URL signing Content-MD5: other bytes are RGW's BadDigest, nothing lands, nothing is recorded")
    func contentMD5RefusedByStorage() async throws {
        let (server, s3) = try await Self.start()
        defer { server.stop() }
        let declared = Self.bytes(2048, seed: 1)
        let ticket = try await Self.issue(
            server, type: "SUM", members: #""size":2048,"contentMD5":"\#(Self.md5(declared))""#)
        #expect(ticket.headers.contains { $0.0.lowercased() == "content-md5" && $0.1 == Self.md5(declared) })
        #expect(ticket.url.lowercased().contains("content-md5"), "Content-MD5 is signed")
        let put = try await Self.put(s3, url: ticket.url, headers: ticket.headers, body: Self.bytes(2048, seed: 2))
        #expect(put.status == 400 && put.text.contains("BadDigest"), "\(put.text)")
        #expect(try await ClientPFlowTests.get(s3, key: "sum/" + ticket.key).0 == 404)
        let confirmed = try await Self.confirm(server, ticket.key)
        #expect(confirmed.status != 200 && confirmed.status != 201, "\(confirmed.text)")
        #expect(try await Self.listed(server, "limit=100").isEmpty)
    }

    @Test(
        "a URL signing only x-amz-checksum-sha256: RGW stores other bytes, the confirmation refuses them (422) and deletes them"
    )
    func sha256ProvenByReading() async throws {
        // An operator who says storage checks SHA-256 when it does not (RGW 16): the URL signs it, RGW
        // ignores it, and the confirmation's proof (storage's checksum first, then the bytes read) catches it.
        let (server, s3) = try await Self.start(extra: ["PRESIGN_S3_CHECKSUMS": "sha256"])
        defer { server.stop() }
        let declared = Self.bytes(4096, seed: 3)
        let sent = Self.bytes(4096, seed: 4)
        let ticket = try await Self.issue(
            server, type: "SUM", members: #""checksumSHA256":"\#(Self.sha256(declared))""#)
        let names = ticket.headers.map { $0.0.lowercased() }
        #expect(names.contains("x-amz-checksum-sha256") && !names.contains("content-md5"), "\(names)")
        let put = try await Self.put(s3, url: ticket.url, headers: ticket.headers, body: sent)
        #expect(put.status == 200, "RGW ignores x-amz-checksum-sha256: \(put.text)")
        let before = try await server.metric("presignd_checksum_refused_total") ?? 0
        let r = try await Self.confirm(server, ticket.key)
        #expect(r.status == 422, "\(r.text)")
        let json = try JSONValue(parsing: r.body)
        #expect(json["code"]?.stringValue == "CHECKSUM_MISMATCH")
        let message = json["message"]?.stringValue ?? ""
        #expect(message.contains(Self.sha256(declared)) && message.contains(Self.sha256(sent)), "\(message)")
        #expect(try await ClientPFlowTests.get(s3, key: "sum/" + ticket.key).0 == 404, "the object is deleted")
        #expect(try await Self.listed(server, "limit=100").isEmpty, "nothing recorded")
        #expect(try await server.metric("presignd_checksum_refused_total") == before + 1)
        // Confirming again: the claim was settled like a content mismatch, not left for another try.
        let again = try await Self.confirm(server, ticket.key)
        #expect(again.status != 201 && again.status != 200, "\(again.text)")
    }

    @Test(
        "the right bytes: 201 with sha256, in every record answer and found by GET /images?sha256=",
        arguments: Backend.allCases)
    func rightBytesRecorded(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        // Bytes whose SHA-256 holds a + and a /, so the query must carry them escaped.
        var seed: UInt8 = 5
        var bytes = Self.bytes(3000, seed: seed)
        while !(Self.sha256(bytes).contains("+") && Self.sha256(bytes).contains("/")) {
            seed &+= 1
            bytes = Self.bytes(3000, seed: seed)
        }
        let sha = Self.sha256(bytes)
        let ticket = try await Self.issue(
            server, type: "SUM",
            members: #""size":3000,"checksumSHA256":"\#(sha)","contentMD5":"\#(Self.md5(bytes))""#)
        #expect(try await Self.put(s3, url: ticket.url, headers: ticket.headers, body: bytes).status == 200)
        let reads = try await server.metric("presignd_checksum_reads_total") ?? 0
        let r = try await Self.confirm(server, ticket.key)
        #expect(r.status == 201, "\(r.text)")
        let record = try JSONValue(parsing: r.body)
        #expect(record["sha256"]?.stringValue == sha)
        #expect(record["deduplicated"] == nil)
        // RGW keeps no SHA-256: the server read the object to prove it.
        #expect(try await server.metric("presignd_checksum_reads_total") == reads + 1)
        let id = try #require(record["id"]?.stringValue)
        let got = try await Self.call(server, "GET", "/images/\(id)")
        #expect(try JSONValue(parsing: got.body)["sha256"]?.stringValue == sha)
        // Another record without a SHA-256, so the query has something to leave out.
        let plain = try await Self.issue(server, type: "SUM", members: "")
        #expect(
            try await Self.put(s3, url: plain.url, headers: plain.headers, body: Self.bytes(10, seed: 9)).status == 200)
        let plainRecord = try await Self.confirm(server, plain.key)
        #expect(plainRecord.status == 201)
        #expect(try JSONValue(parsing: plainRecord.body)["sha256"]?.isNull == true)
        #expect(try await Self.listed(server, "sha256=\(Self.q(sha))") == [id])
        #expect(try await Self.listed(server, "sha256=\(Self.q(sha))&type=SUM") == [id])
        #expect(try await Self.listed(server, "sha256=\(Self.q(Self.sha256([1])))").isEmpty)
        #expect(try await Self.listed(server, "sha256=\(Self.q(sha))", user: "6").isEmpty, "another owner's")
        #expect(try await Self.listed(server, "limit=100").count == 2)
        let hex = try await Self.call(server, "GET", "/images?sha256=\(SHA256.hash(bytes).hex)")
        #expect(hex.status == 422 && hex.text.contains("sha256"), "\(hex.text)")
    }

    @Test(
        "dedup on: the same bytes again answer the earlier record (200, deduplicated) and delete the new object; off: two records"
    )
    func dedupOnAndOff() async throws {
        let (server, s3) = try await Self.start()
        defer { server.stop() }
        let bytes = Self.bytes(1500, seed: 11)
        let members = #""checksumSHA256":"\#(Self.sha256(bytes))""#
        var ids: [String] = []
        var keys: [String] = []
        for _ in 0..<2 {
            let t = try await Self.issue(server, type: "DEDUP", members: members)
            #expect(try await Self.put(s3, url: t.url, headers: t.headers, body: bytes).status == 200)
            keys.append(t.key)
            let r = try await Self.confirm(server, t.key)
            let json = try JSONValue(parsing: r.body)
            ids.append(try #require(json["id"]?.stringValue, "\(r.text)"))
            if keys.count == 1 {
                #expect(r.status == 201 && json["deduplicated"] == nil, "\(r.text)")
            } else {
                #expect(r.status == 200 && json["deduplicated"]?.boolValue == true, "\(r.text)")
                #expect(json["imageKey"]?.stringValue == keys[0])
            }
        }
        #expect(ids[0] == ids[1])
        #expect(try await ClientPFlowTests.get(s3, key: "dedup/" + keys[1]).0 == 404, "the new object is deleted")
        #expect(try await ClientPFlowTests.get(s3, key: "dedup/" + keys[0]).1 == bytes, "the first stays")
        // The second key's confirmation, repeated, answers the same record.
        let repeated = try await Self.confirm(server, keys[1])
        let repeatedId = try JSONValue(parsing: repeated.body)["id"]?.stringValue
        #expect(repeated.status == 200 && repeatedId == ids[0], "\(repeated.text)")
        // Off (SUM): the same bytes twice are two records; the other user's same bytes are theirs.
        var sumIds: Set<String> = []
        for _ in 0..<2 {
            let t = try await Self.issue(server, type: "SUM", members: members)
            #expect(try await Self.put(s3, url: t.url, headers: t.headers, body: bytes).status == 200)
            let r = try await Self.confirm(server, t.key)
            #expect(r.status == 201, "\(r.text)")
            sumIds.insert(try #require(try JSONValue(parsing: r.body)["id"]?.stringValue))
        }
        #expect(sumIds.count == 2)
        let other = try await Self.issue(server, type: "DEDUP", members: members, user: "6")
        #expect(try await Self.put(s3, url: other.url, headers: other.headers, body: bytes).status == 200)
        #expect(try await Self.confirm(server, other.key, user: "6").status == 201, "dedup is per owner")
        #expect(try await Self.listed(server, "sha256=\(Self.q(Self.sha256(bytes)))").count == 3)
    }

    @Test("computeSha256: an upload that declared nothing is read and its record holds its SHA-256")
    func computedSha256() async throws {
        let (server, s3) = try await Self.start()
        defer { server.stop() }
        let bytes = Self.bytes(777, seed: 21)
        let t = try await Self.issue(server, type: "COMPUTED", members: "")
        #expect(try await Self.put(s3, url: t.url, headers: t.headers, body: bytes).status == 200)
        let r = try await Self.confirm(server, t.key)
        #expect(r.status == 201, "\(r.text)")
        #expect(try JSONValue(parsing: r.body)["sha256"]?.stringValue == Self.sha256(bytes))
    }

    @Test(
        "multipart: a declared size over the type's limit is refused before any part; parts not adding up to it are SIZE_MISMATCH"
    )
    func multipartDeclaredSize() async throws {
        let (server, s3) = try await Self.start()
        defer { server.stop() }
        // Uppy's default type, IMAGE, takes 20 MiB.
        let over = try await Self.call(
            server, "POST", "/s3/multipart",
            body: #"{"filename":"big.jpg","type":"image/jpeg","metadata":{},"size":\#(30 * 1024 * 1024)}"#)
        #expect(over.status == 422, "\(over.text)")
        let message = try JSONValue(parsing: over.body)["message"]?.stringValue ?? ""
        #expect(message.contains("size"), "\(message)")
        // A declared size the parts do not add up to: refused at completion, before storage completes.
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        let created = try await Self.call(
            server, "POST", "/s3/multipart",
            body: #"{"filename":"a.jpg","type":"image/jpeg","metadata":{},"size":\#(jpeg.count + 1)}"#)
        #expect(created.status == 200, "\(created.text)")
        let cj = try JSONValue(parsing: created.body)
        let key = try #require(cj["key"]?.stringValue)
        let uploadId = try #require(cj["uploadId"]?.stringValue)
        let base = "/s3/multipart/\(Self.q(uploadId))"
        // The part's URL signs its MD5; other bytes under it are storage's BadDigest.
        let signed = try await Self.call(server, "GET", "\(base)/1?key=\(Self.q(key))&md5=\(Self.q(Self.md5(jpeg)))")
        #expect(signed.status == 200, "\(signed.text)")
        let url = try #require(try JSONValue(parsing: signed.body)["url"]?.stringValue)
        // The batch form signs one MD5 per part, in the order of the part numbers.
        let batch = try await Self.call(
            server, "GET",
            "\(base)/batch?key=\(Self.q(key))&partNumbers=1,2&md5=\(Self.q(Self.md5(jpeg))),\(Self.q(Self.md5([2])))")
        #expect(batch.status == 200, "\(batch.text)")
        let urls = try #require(try JSONValue(parsing: batch.body)["presignedUrls"]?.objectValue)
        #expect(urls.members.count == 2)
        #expect(urls.members.allSatisfy { $0.value.stringValue?.contains("content-md5") == true })
        let batchPut = try await Self.put(
            s3, url: try #require(urls["2"]?.stringValue), headers: [("Content-MD5", Self.md5([2]))], body: [3])
        #expect(batchPut.status == 400 && batchPut.text.contains("BadDigest"), "\(batchPut.text)")
        var damaged = jpeg
        damaged[damaged.count - 3] ^= 0xFF
        let bad = try await Self.put(s3, url: url, headers: [("Content-MD5", Self.md5(jpeg))], body: damaged)
        #expect(bad.status == 400 && bad.text.contains("BadDigest"), "\(bad.text)")
        let good = try await Self.put(s3, url: url, headers: [("Content-MD5", Self.md5(jpeg))], body: jpeg)
        #expect(good.status == 200)
        let etag = try #require(good.header("ETag"))
        let done = try await Self.call(
            server, "POST", "\(base)/complete?key=\(Self.q(key))",
            body: #"{"parts":[{"PartNumber":1,"ETag":\#(etag.debugDescription)}]}"#)
        #expect(done.status == 400 && done.text.contains("SIZE_MISMATCH"), "\(done.text)")
        #expect(try await Self.listed(server, "limit=100").isEmpty)
    }

    @Test(
        "multipart: the declared size is what the owner's daily byte quota counts; over it, refused at creation (429)")
    func multipartDeclaredSizeAndQuota() async throws {
        let (server, _) = try await Self.start(extra: [
            "PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_BYTES_PER_USER_PER_DAY": String(10 * 1024 * 1024),
        ])
        defer { server.stop() }
        func create(_ size: Int?) async throws -> WireResponse {
            let member = size.map { #","size":\#($0)"# } ?? ""
            return try await Self.call(
                server, "POST", "/s3/multipart",
                body: #"{"filename":"a.jpg","type":"image/jpeg","metadata":{}\#(member)}"#)
        }
        // Undeclared, the type's 20 MiB is counted: over the 10 MiB quota.
        let undeclared = try await create(nil)
        #expect(undeclared.status == 429 && undeclared.text.contains("QUOTA_EXCEEDED"), "\(undeclared.text)")
        // Declared, its size is: 6 MiB fits, another 6 MiB does not.
        let first = try await create(6 * 1024 * 1024)
        #expect(first.status == 200, "\(first.text)")
        let second = try await create(6 * 1024 * 1024)
        #expect(second.status == 429 && second.text.contains("QUOTA_EXCEEDED"), "\(second.text)")
        #expect(try JSONValue(parsing: second.body)["message"]?.stringValue != nil, "Companion's shape")
    }

    @Test("multipart: the whole object's declared SHA-256 is proven at completion")
    func multipartSha256() async throws {
        let (server, s3) = try await Self.start()
        defer { server.stop() }
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        for (declared, ok) in [(Self.sha256(jpeg), true), (Self.sha256([0]), false)] {
            let created = try await Self.call(
                server, "POST", "/s3/multipart",
                body:
                    #"{"filename":"a.jpg","type":"image/jpeg","metadata":{},"size":\#(jpeg.count),"checksumSHA256":"\#(declared)"}"#
            )
            #expect(created.status == 200, "\(created.text)")
            let cj = try JSONValue(parsing: created.body)
            let key = try #require(cj["key"]?.stringValue)
            let base = "/s3/multipart/\(Self.q(try #require(cj["uploadId"]?.stringValue)))"
            let part = try await Self.call(server, "GET", "\(base)/1?key=\(Self.q(key))")
            let url = try #require(try JSONValue(parsing: part.body)["url"]?.stringValue)
            let put = try await Self.put(s3, url: url, headers: [], body: jpeg)
            let etag = try #require(put.header("ETag"))
            let done = try await Self.call(
                server, "POST", "\(base)/complete?key=\(Self.q(key))",
                body: #"{"parts":[{"PartNumber":1,"ETag":\#(etag.debugDescription)}]}"#)
            if ok {
                #expect(done.status == 200, "\(done.text)")
                #expect(try JSONValue(parsing: done.body)["record"]?["sha256"]?.stringValue == declared, "\(done.text)")
            } else {
                #expect(done.status == 422 && done.text.contains("CHECKSUM_MISMATCH"), "\(done.text)")
                #expect(try await ClientPFlowTests.get(s3, key: key).0 == 404, "the object is deleted")
            }
        }
        #expect(try await Self.listed(server, "limit=100").count == 1)
    }

    /// Malformed declarations: hex, another length, not base64; sizes negative, 0 for images, past 5 TiB.
    static let malformed: [(member: String, json: String, query: String)] = [
        ("checksumSHA256", #""\#(SHA256.hash([1]).hex)""#, SHA256.hash([1]).hex),
        ("checksumSHA256", #""\#(md5([1]))""#, q(md5([1]))),
        ("contentMD5", #""@@not base64@@""#, q("@@not base64@@")),
        ("contentMD5", #""\#(Hex.encode(MD5.hash([1])))""#, Hex.encode(MD5.hash([1]))),
        ("size", "-1", "-1"),
        ("size", "0", "0"),
        ("size", "5497558138881", "5497558138881"),
    ]

    @Test("malformed digests and sizes: 422 naming the member, in each route's own shape")
    func malformedInEachShape() async throws {
        let (server, _) = try await CompatFlowTests.start(
            .sqlite, profiles: "clientP,clientB", extra: ["PRESIGN_UPPY_ENABLED": "true"])
        defer { server.stop() }
        for (member, json, query) in Self.malformed {
            // Native POST: client P's validation shape, fieldErrors naming the member.
            let post = try await CompatFlowTests.send(
                server, "POST", "/presigned-url", user: "5",
                body: #"{"contentType":"image/jpeg","imageKey":"\#(UUID().uuidString)","\#(member)":\#(json)}"#)
            #expect(post.status == 422, "POST /presigned-url \(member)=\(json): \(post.text)")
            #expect(try JSONValue(parsing: post.body)["fieldErrors"]?[member]?.stringValue != nil, "\(post.text)")
            // Native GET and client P's route: the query form, fieldErrors.
            for path in ["/presigned-url", "/v1/storage/presigned-url"] {
                let get = try await CompatFlowTests.send(
                    server, "GET", "\(path)?type=PROFILE&ext=jpg&\(member)=\(query)", user: "5")
                #expect(get.status == 422, "GET \(path) \(member)=\(query): \(get.text)")
                #expect(try JSONValue(parsing: get.body)["fieldErrors"]?[member]?.stringValue != nil, "\(get.text)")
            }
            // Client B's envelope: data null, its message naming the member.
            let b = try await CompatFlowTests.send(
                server, "POST", "/api/v1/quests/images/signed-url", user: "5",
                body: #"{"contentType":"image/jpeg","imageKey":"\#(UUID().uuidString)","\#(member)":\#(json)}"#)
            #expect(b.status == 422, "client B \(member)=\(json): \(b.text)")
            let envelope = try JSONValue(parsing: b.body)
            #expect(envelope["data"]?.isNull == true, "\(b.text)")
            #expect(b.text.contains(member), "client B's envelope names \(member): \(b.text)")
            // Companion's shape: `message` naming the member (a digest in the body of the create).
            let mp = try await CompatFlowTests.send(
                server, "POST", "/s3/multipart", user: "5",
                body: #"{"filename":"a.jpg","type":"image/jpeg","metadata":{},"\#(member)":\#(json)}"#)
            #expect(mp.status == 422, "POST /s3/multipart \(member)=\(json): \(mp.text)")
            #expect(
                (try JSONValue(parsing: mp.body)["message"]?.stringValue ?? "").contains(member),
                "Companion's message names \(member): \(mp.text)")
        }
        // A part's md5 in Companion's shape.
        let created = try await CompatFlowTests.send(
            server, "POST", "/s3/multipart", user: "5", body: #"{"filename":"a.jpg","type":"image/jpeg","metadata":{}}"#
        )
        let cj = try JSONValue(parsing: created.body)
        let key = try #require(cj["key"]?.stringValue, "\(created.text)")
        let base = "/s3/multipart/\(Self.q(try #require(cj["uploadId"]?.stringValue)))"
        for bad in [Hex.encode(MD5.hash([1])), Self.q(Self.sha256([1]))] {
            let part = try await CompatFlowTests.send(
                server, "GET", "\(base)/1?key=\(Self.q(key))&md5=\(bad)", user: "5")
            #expect(part.status == 422 && part.text.contains("md5"), "\(part.text)")
            let batch = try await CompatFlowTests.send(
                server, "GET", "\(base)/batch?key=\(Self.q(key))&partNumbers=1,2&md5=\(bad),\(bad)", user: "5")
            #expect(batch.status == 422 && batch.text.contains("md5"), "\(batch.text)")
        }
        let short = try await CompatFlowTests.send(
            server, "GET", "\(base)/batch?key=\(Self.q(key))&partNumbers=1,2&md5=\(Self.q(Self.md5([1])))", user: "5")
        #expect(short.status == 422 && short.text.contains("md5"), "one md5 for two parts: \(short.text)")
    }
}
