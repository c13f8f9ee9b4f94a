import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// Uppy Companion's S3 routes end to end: the application in process, a real RGW, each records backend. The
/// parts are uploaded through the presigned part URLs as a browser would, and part 1 starts with a
/// real JPEG so the upload passes a content check of the record.
@Suite("Uppy routes: multipart and params", .serialized, .onDispatchThreads)
struct UppyFlowTests {
    static let origin = "https://app.example.test"

    static func start(
        _ backend: Backend, extra: [String: String] = [:], nowMillis: (@Sendable () -> Int64)? = nil
    ) async throws -> (InProcessApp, TestEnvironment.S3) {
        var more = [
            "PRESIGN_UPPY_ENABLED": "true", "PRESIGN_CORS_ALLOWED_ORIGINS": origin,
            "PRESIGN_CORS_ALLOW_CREDENTIALS": "true",
        ]
        for (k, v) in extra { more[k] = v }
        return try await ImagesFlowTests.start(backend, extra: more, nowMillis: nowMillis)
    }

    /// One request to presignd as `user` (the application, the binary, or a balancer in front of several).
    static func call(
        _ server: some HTTPTarget, _ method: String, _ path: String, user: String = "42", body: String? = nil,
        headers: String = ""
    ) async throws -> WireResponse {
        try await server.exchange(method, path, headers: "X-User-Id: \(user)\r\n" + headers, body: body)
    }

    static func json(_ r: WireResponse) throws -> JSONValue { try JSONValue(parsing: r.body) }

    /// `POST /s3/multipart`: (key, uploadId).
    static func create(_ server: some HTTPTarget, user: String = "42", filename: String = "Holiday Video.jpg")
        async throws -> (key: String, uploadId: String)
    {
        let r = try await call(
            server, "POST", "/s3/multipart", user: user,
            body: #"{"filename":"\#(filename)","type":"image/jpeg","metadata":{"name":"\#(filename)"}}"#)
        #expect(r.status == 200, "\(r.text)")
        let j = try json(r)
        #expect(j["bucket"]?.stringValue == "uploads" || j["bucket"]?.stringValue?.isEmpty == false)
        return (try #require(j["key"]?.stringValue), try #require(j["uploadId"]?.stringValue))
    }

    static func q(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? s }

    /// PUTs `bytes` to a presigned URL on RGW; (status, ETag header).
    static func put(_ s3: TestEnvironment.S3, url: String, bytes: [UInt8], contentType: String? = nil) async throws
        -> (Int, String?)
    {
        let (host, port) = s3.hostPort
        let target = String(url[try #require(url.range(of: "\(host):\(port)")).upperBound...])
        var head = "PUT \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Length: \(bytes.count)\r\n"
        if let contentType { head += "Content-Type: \(contentType)\r\n" }
        let r = try await SocketTarget(host: host, port: port).exchange(
            Array((head + "Connection: close\r\n\r\n").utf8) + bytes)
        return (r.status, r.header("ETag"))
    }

    /// The bytes of a 12 MiB upload: a real JPEG first, then deterministic filler.
    static func payload(_ count: Int) throws -> [UInt8] {
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        return Array((jpeg + SplitMix64.bytes(max(0, count - jpeg.count), seed: 13)).prefix(count))
    }

    static let mib = 1024 * 1024

    @Test(
        "12 MiB in 3 parts through part URLs (single and batch), completed, read back, recorded",
        arguments: Backend.allCases)
    func fullUpload(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let bytes = try Self.payload(12 * Self.mib)
        let (key, uploadId) = try await Self.create(server)
        #expect(RequestKey.isUUID(key), "the IMAGE type's key is {imageKey}: \(key)")
        let base = "/s3/multipart/\(Self.q(uploadId))"
        let one = try await Self.call(server, "GET", "\(base)/1?key=\(Self.q(key))")
        #expect(one.status == 200, "\(one.text)")
        let oneJSON = try Self.json(one)
        #expect(oneJSON["expires"]?.intValue == 900)
        let batch = try await Self.call(server, "GET", "\(base)/batch?key=\(Self.q(key))&partNumbers=2,3")
        #expect(batch.status == 200, "\(batch.text)")
        let urls = try Self.json(batch)["presignedUrls"]
        let partURLs = [
            try #require(oneJSON["url"]?.stringValue), try #require(urls?["2"]?.stringValue),
            try #require(urls?["3"]?.stringValue),
        ]
        let ranges = [0..<5 * Self.mib, 5 * Self.mib..<10 * Self.mib, 10 * Self.mib..<12 * Self.mib]
        var parts: [String] = []
        for (i, range) in ranges.enumerated() {
            let (status, etag) = try await Self.put(s3, url: partURLs[i], bytes: Array(bytes[range]))
            #expect(status == 200)
            parts.append(#"{"PartNumber":\#(i + 1),"ETag":\#(try #require(etag).debugDescription)}"#)
        }
        // Sent out of order: the server sorts them.
        let body = #"{"parts":[\#(parts[2]),\#(parts[0]),\#(parts[1])]}"#
        let done = try await Self.call(server, "POST", "\(base)/complete?key=\(Self.q(key))", body: body)
        #expect(done.status == 200, "\(done.text)")
        let d = try Self.json(done)
        let finalKey = try #require(d["key"]?.stringValue)
        #expect(d["location"]?.stringValue?.isEmpty == false)
        #expect(d["record"]?["size"]?.intValue == bytes.count)
        #expect(d["record"]?["contentType"]?.stringValue == "image/jpeg")
        let id = try #require(d["record"]?["id"]?.stringValue)
        #expect(try await ClientPFlowTests.get(s3, key: finalKey).1 == bytes)
        let rec = try await Self.call(server, "GET", "/images/\(id)")
        #expect(rec.status == 200)
        #expect(try Self.json(rec)["key"]?.stringValue == finalKey)
        // A repeated completion answers the record again; the upload itself is gone from storage.
        let again = try await Self.call(server, "POST", "\(base)/complete?key=\(Self.q(key))", body: body)
        #expect(again.status == 200, "\(again.text)")
        #expect(try Self.json(again)["record"]?["id"]?.stringValue == id)
        let listed = try await Self.call(server, "GET", "\(base)?key=\(Self.q(key))")
        #expect(listed.status == 404)
        #expect(try Self.json(listed)["code"]?.stringValue == "NO_SUCH_UPLOAD")
    }

    @Test("metadata.uploadType picks a type whose key holds the file name's slug; its size limit holds at completion")
    func typedUpload() async throws {
        let dir = Temporary.directory()
        let file = dir + "/clip.json"
        let clip =
            #"{"types":{"CLIP":{"extensions":["jpg"],"contentTypes":["image/jpeg"],"#
            + #""keyTemplate":"clips/{userId}/{uuid}/{filename}.{ext}","permanentKeyTemplate":"","#
            + #""maxBytes":7340032,"expiresSeconds":600,"requiresChatroomId":false}}}"#
        try clip.write(toFile: file, atomically: true, encoding: .utf8)
        let (server, s3) = try await Self.start(.sqlite, extra: ["PRESIGN_CONFIG": file])
        defer { server.stop() }
        func upload(_ sizes: [Int]) async throws -> (key: String, WireResponse) {
            let r = try await Self.call(
                server, "POST", "/s3/multipart",
                body: #"{"filename":"../My Clip (final).JPG","type":"image/jpeg","metadata":{"uploadType":"CLIP"}}"#)
            #expect(r.status == 200, "\(r.text)")
            let j = try Self.json(r)
            let key = try #require(j["key"]?.stringValue)
            let uploadId = try #require(j["uploadId"]?.stringValue)
            let bytes = try Self.payload(sizes.reduce(0, +))
            let base = "/s3/multipart/\(Self.q(uploadId))"
            let numbers = (1...sizes.count).map(String.init).joined(separator: ",")
            let urls = try Self.json(
                try await Self.call(server, "GET", "\(base)/batch?key=\(Self.q(key))&partNumbers=\(numbers)"))[
                    "presignedUrls"]
            var parts: [String] = []
            var offset = 0
            for (i, size) in sizes.enumerated() {
                let url = try #require(urls?["\(i + 1)"]?.stringValue)
                let (status, etag) = try await Self.put(s3, url: url, bytes: Array(bytes[offset..<offset + size]))
                #expect(status == 200)
                offset += size
                parts.append(#"{"PartNumber":\#(i + 1),"ETag":\#(try #require(etag).debugDescription)}"#)
            }
            let done = try await Self.call(
                server, "POST", "\(base)/complete?key=\(Self.q(key))",
                body: #"{"parts":[\#(parts.joined(separator: ","))]}"#)
            return (key, done)
        }
        let (bigKey, big) = try await upload([5 * Self.mib, 3 * Self.mib])
        #expect(big.status == 400, "\(big.text)")
        #expect(try Self.json(big)["code"]?.stringValue == "ENTITY_TOO_LARGE")
        #expect(bigKey.hasPrefix("clips/42/") && bigKey.hasSuffix("/my-clip-final.jpg"), "\(bigKey)")
        let (key, ok) = try await upload([5 * Self.mib, 1 * Self.mib])
        #expect(ok.status == 200, "\(ok.text)")
        let d = try Self.json(ok)
        #expect(d["key"]?.stringValue == key)
        #expect(d["record"]?["type"]?.stringValue == "CLIP")
        #expect(d["record"]?["size"]?.intValue == 6 * Self.mib)
    }

    @Test(
        "resume: list after 2 of 3 parts, upload the third, complete with the listed ETags", arguments: Backend.allCases
    )
    func resume(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let bytes = try Self.payload(11 * Self.mib)
        let (key, uploadId) = try await Self.create(server)
        let base = "/s3/multipart/\(Self.q(uploadId))"
        let batch = try Self.json(
            try await Self.call(server, "GET", "\(base)/batch?key=\(Self.q(key))&partNumbers=1,2,3"))["presignedUrls"]
        let ranges = [0..<5 * Self.mib, 5 * Self.mib..<10 * Self.mib, 10 * Self.mib..<11 * Self.mib]
        for i in 0..<2 {
            #expect(
                try await Self.put(
                    s3, url: try #require(batch?["\(i + 1)"]?.stringValue), bytes: Array(bytes[ranges[i]])
                ).0
                    == 200)
        }
        let list = try await Self.call(server, "GET", "\(base)?key=\(Self.q(key))")
        #expect(list.status == 200, "\(list.text)")
        let listed = try #require(try Self.json(list).arrayValue)
        #expect(listed.count == 2)
        #expect(listed.map { $0["PartNumber"]?.intValue } == [1, 2])
        #expect(listed.map { $0["Size"]?.intValue } == [5 * Self.mib, 5 * Self.mib])
        #expect(listed.allSatisfy { ($0["LastModified"]?.stringValue ?? "").hasSuffix("Z") })
        #expect(
            try await Self.put(s3, url: try #require(batch?["3"]?.stringValue), bytes: Array(bytes[ranges[2]])).0 == 200
        )
        let all = try #require(
            try Self.json(try await Self.call(server, "GET", "\(base)?key=\(Self.q(key))")).arrayValue)
        #expect(all.count == 3)
        let parts = all.map {
            #"{"PartNumber":\#($0["PartNumber"]!.intValue!),"ETag":\#($0["ETag"]!.stringValue!.debugDescription)}"#
        }
        let done = try await Self.call(
            server, "POST", "\(base)/complete?key=\(Self.q(key))",
            body: #"{"parts":[\#(parts.joined(separator: ","))]}"#)
        #expect(done.status == 200, "\(done.text)")
        #expect(
            try await ClientPFlowTests.get(s3, key: try #require(try Self.json(done)["key"]?.stringValue)).1 == bytes)
    }

    @Test("1,001 uncompleted one-byte parts list in full; too small to complete; abort removes the upload")
    func manyPartsAndAbort() async throws {
        let (server, s3) = try await Self.start(.sqlite)
        defer { server.stop() }
        let (key, uploadId) = try await Self.create(server)
        let base = "/s3/multipart/\(Self.q(uploadId))"
        var numbers = Array(1...1001)
        while !numbers.isEmpty {
            let chunk = Array(numbers.prefix(500))
            numbers.removeFirst(chunk.count)
            let list = chunk.map(String.init).joined(separator: ",")
            let r = try await Self.call(server, "GET", "\(base)/batch?key=\(Self.q(key))&partNumbers=\(list)")
            #expect(r.status == 200)
            let urls = try Self.json(r)["presignedUrls"]
            for n in chunk {
                #expect(
                    try await Self.put(s3, url: try #require(urls?["\(n)"]?.stringValue), bytes: [UInt8(n & 0xff)]).0
                        == 200)
            }
        }
        let list = try await Self.call(server, "GET", "\(base)?key=\(Self.q(key))")
        #expect(list.status == 200)
        let parts = try #require(try Self.json(list).arrayValue)
        #expect(parts.count == 1001)
        #expect(parts.last?["PartNumber"]?.intValue == 1001)
        let body =
            "{\"parts\":["
            + parts.prefix(2).map {
                #"{"PartNumber":\#($0["PartNumber"]!.intValue!),"ETag":\#($0["ETag"]!.stringValue!.debugDescription)}"#
            }.joined(separator: ",") + "]}"
        let small = try await Self.call(server, "POST", "\(base)/complete?key=\(Self.q(key))", body: body)
        #expect(small.status == 400)
        #expect(try Self.json(small)["code"]?.stringValue == "ENTITY_TOO_SMALL")
        let abort = try await Self.call(server, "DELETE", "\(base)?key=\(Self.q(key))")
        #expect(abort.status == 200)
        #expect(abort.text == "{}")
        let after = try await Self.call(server, "GET", "\(base)?key=\(Self.q(key))")
        #expect(after.status == 404)
        #expect(try Self.json(after)["code"]?.stringValue == "NO_SUCH_UPLOAD")
        // An abort of the upload already gone answers 200 `{}`, as Companion's does (Uppy's clean-up
        // abort after a refused completion never handles a rejection).
        let again = try await Self.call(server, "DELETE", "\(base)?key=\(Self.q(key))")
        #expect(again.status == 200, "\(again.text)")
        #expect(again.text == "{}")
    }

    @Test(
        "a mismatched uploadId/key pair and another caller's upload are 404, and the owner's stays",
        arguments: Backend.allCases)
    func refusals(backend: Backend) async throws {
        let (server, _) = try await Self.start(backend)
        defer { server.stop() }
        let a = try await Self.create(server)
        let b = try await Self.create(server, filename: "other.jpg")
        // The caller's own key with another of its upload IDs: never issued as a pair.
        for path in [
            "/s3/multipart/\(Self.q(b.uploadId))?key=\(Self.q(a.key))",
            "/s3/multipart/\(Self.q(b.uploadId))/1?key=\(Self.q(a.key))",
        ] {
            let r = try await Self.call(server, "GET", path)
            #expect(r.status == 404, "\(path): \(r.text)")
            #expect(try Self.json(r)["code"]?.stringValue == "NO_SUCH_UPLOAD")
        }
        // Another caller: the same answer for every route, nothing revealed.
        let base = "/s3/multipart/\(Self.q(a.uploadId))"
        let k = "key=\(Self.q(a.key))"
        let probes: [(String, String, String?)] = [
            ("GET", "\(base)?\(k)", nil), ("GET", "\(base)/1?\(k)", nil),
            ("GET", "\(base)/batch?\(k)&partNumbers=1", nil),
            ("POST", "\(base)/complete?\(k)", #"{"parts":[{"PartNumber":1,"ETag":"\"x\""}]}"#),
        ]
        for (method, path, body) in probes {
            let r = try await Self.call(server, method, path, user: "43", body: body)
            #expect(r.status == 404, "\(method) \(path): \(r.text)")
            #expect(try Self.json(r)["code"]?.stringValue == "NO_SUCH_UPLOAD")
        }
        // Another caller's abort is answered as an abort of an upload already gone (200 `{}`): nothing
        // revealed, nothing aborted.
        let foreignAbort = try await Self.call(server, "DELETE", "\(base)?\(k)", user: "43")
        #expect(foreignAbort.status == 200 && foreignAbort.text == "{}", "\(foreignAbort.text)")
        let own = try await Self.call(server, "GET", "\(base)?\(k)")
        #expect(own.status == 200)
        #expect(own.text == "[]")
        // A key presignd never made.
        let foreign = try await Self.call(server, "GET", "\(base)?key=..%2Fetc")
        #expect(foreign.status == 404)
    }

    @Test("bad input is 400 {\"error\", \"message\"} as Companion answers it, with the message Uppy shows")
    func badInput() async throws {
        let (server, _) = try await Self.start(.sqlite)
        defer { server.stop() }
        let (key, uploadId) = try await Self.create(server)
        let base = "/s3/multipart/\(Self.q(uploadId))"
        let k = "key=\(Self.q(key))"
        var cases: [(String, String, String?)] = [
            ("POST", "/s3/multipart", #"{"type":"image/jpeg"}"#),
            ("POST", "/s3/multipart", #"{"filename":"a.jpg"}"#),
            ("POST", "/s3/multipart", #"{"filename":"a.jpg","type":"video/mp4"}"#),
            ("POST", "/s3/multipart", #"{"filename":"a.jpg","type":"image/jpeg","metadata":{"uploadType":"NOPE"}}"#),
            ("POST", "/s3/multipart", #"{"filename":"a.jpg","#),
            ("GET", "\(base)/1", nil),
            ("GET", "\(base)/batch?\(k)", nil),
            ("POST", "\(base)/complete?\(k)", #"{"parts":[]}"#),
            ("POST", "\(base)/complete?\(k)", #"{"parts":[{"PartNumber":"1","ETag":"x"}]}"#),
            ("POST", "\(base)/complete?\(k)", #"{"parts":[{"PartNumber":1}]}"#),
            ("POST", "\(base)/complete?\(k)", #"{"parts":[{"PartNumber":1,"ETag":"a"},{"PartNumber":1,"ETag":"b"}]}"#),
            ("POST", "\(base)/complete?\(k)", #"{"parts":[{"PartNumber":10001,"ETag":"a"}]}"#),
            ("GET", "/s3/params?type=image/jpeg", nil),
            ("GET", "/s3/params?filename=a.jpg", nil),
        ]
        for n in ["0", "10001", "abc", "01", "-1", "1.5"] { cases.append(("GET", "\(base)/\(n)?\(k)", nil)) }
        for list in ["", "1,,2", "1,1", "0", "a", "1,10001", " 1", (1...1001).map(String.init).joined(separator: ",")] {
            cases.append(("GET", "\(base)/batch?\(k)&partNumbers=\(Self.q(list))", nil))
        }
        // The completion body has its own limit (1 MiB by default): over it, the server's own 413.
        let huge = try await Self.call(
            server, "POST", "\(base)/complete?\(k)", body: String(repeating: " ", count: 1_048_577))
        #expect(huge.status == 413)
        for (method, path, body) in cases {
            let r = try await Self.call(server, method, path, body: body)
            #expect(r.status == 400, "\(method) \(path.prefix(120)) \(body ?? ""): \(r.status) \(r.text)")
            #expect(r.header("Content-Type") == "application/json")
            #expect(try Self.json(r)["error"]?.stringValue?.isEmpty == false)
            // Uppy shows only `message`: the same text beside `error`.
            #expect(try Self.json(r)["message"] == Self.json(r)["error"])
        }
    }

    @Test("GET /s3/sts is not served: 403 (a 4xx, whose message Uppy shows) in Companion's error shape")
    func stsNotServed() async throws {
        let (server, _) = try await Self.start(.sqlite)
        defer { server.stop() }
        let r = try await Self.call(server, "GET", "/s3/sts")
        #expect(r.status == 403, "\(r.text)")
        #expect(r.header("Content-Type") == "application/json")
        let j = try Self.json(r)
        #expect(j["code"]?.stringValue == "STS_NOT_SERVED")
        #expect(j["error"]?.stringValue?.contains("temporary credentials") == true)
        #expect(j["message"] == j["error"])
        #expect(j["credentials"] == nil)
    }

    @Test("401 without valid auth, as JSON")
    func unauthorized() async throws {
        let (server, _) = try await Self.start(
            .sqlite,
            extra: [
                "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256",
                "PRESIGN_AUTH_HS256_SECRET": AuthFlowTests.secret,
            ])
        defer { server.stop() }
        let r = try await server.exchange("POST", "/s3/multipart", body: #"{"filename":"a.jpg","type":"image/jpeg"}"#)
        #expect(r.status == 401)
        #expect(r.header("Content-Type") == "application/json")
        #expect(try Self.json(r)["code"]?.stringValue == "UNAUTHORIZED")
    }

    /// A multipart/form-data POST of `fields` and a file to RGW: the response.
    static func postForm(
        _ s3: TestEnvironment.S3, url: String, fields: [(String, String)], file: [UInt8], contentType: String
    ) async throws -> WireResponse {
        let boundary = "----presignd\(UUID().uuidString.prefix(8))"
        var body: [UInt8] = []
        for (n, v) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(n)\"\r\n\r\n\(v)\r\n".utf8)
        }
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f\"\r\nContent-Type: \(contentType)\r\n\r\n"
                .utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        let (host, port) = s3.hostPort
        let target = String(url[try #require(url.range(of: "\(host):\(port)")).upperBound...])
        let head =
            "POST \(target.isEmpty ? "/" : target) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: multipart/form-data; boundary=\(boundary)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return try await SocketTarget(host: host, port: port).exchange(Array(head.utf8) + body)
    }

    @Test(
        "params: POST under the limit is 201 (ETag only in the body on this RGW), over it EntityTooLarge, wrong type refused"
    )
    func paramsPost() async throws {
        let (server, s3) = try await Self.start(.sqlite, extra: ["PRESIGN_UPPY_PARAMS_METHOD": "post"])
        defer { server.stop() }
        func params() async throws -> (url: String, fields: [(String, String)], key: String) {
            let r = try await Self.call(
                server, "GET", "/s3/params?filename=cat%20pic.jpg&type=image%2Fjpeg&metadata%5Bname%5D=cat")
            #expect(r.status == 200, "\(r.text)")
            let j = try Self.json(r)
            #expect(j["method"]?.stringValue == "POST")
            #expect(j["expires"]?.intValue == 600)
            let fields = try #require(j["fields"]?.objectValue).map { ($0.key, $0.value.stringValue ?? "") }
            #expect(fields.first?.0 == "success_action_status")
            #expect(fields.first?.1 == "201")
            // Companion's names, in its letter case and order (issue 19, point 17).
            #expect(
                fields.map(\.0) == [
                    "success_action_status", "content-type", "bucket", "X-Amz-Algorithm", "X-Amz-Credential",
                    "X-Amz-Date", "key", "Policy", "X-Amz-Signature",
                ])
            // Companion's fields carry the key and the bucket; Uppy reads them (issue 19, point 15).
            let key = try #require(j["key"]?.stringValue)
            #expect(j["fields"]?["key"]?.stringValue == key)
            #expect(j["fields"]?["bucket"]?.stringValue == s3.bucket)
            return (try #require(j["url"]?.stringValue), fields, key)
        }
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        let ok = try await params()
        let r = try await Self.postForm(s3, url: ok.url, fields: ok.fields, file: jpeg, contentType: "image/jpeg")
        #expect(r.status == 201, "\(r.text)")
        #expect(r.text.contains("<ETag>"))
        // The finding that makes PUT the default: this RGW sends the POST's ETag only in the body.
        #expect(r.header("ETag") == nil)
        let confirmed = try await Self.call(server, "POST", "/images", body: #"{"imageKey":"\#(ok.key)"}"#)
        #expect(confirmed.status == 201, "\(confirmed.text)")

        let big = try await params()
        let over = try await Self.postForm(
            s3, url: big.url, fields: big.fields, file: jpeg + [UInt8](repeating: 7, count: 20 * Self.mib),
            contentType: "image/jpeg")
        #expect(over.status == 400)
        #expect(over.text.contains("EntityTooLarge"))

        let wrong = try await params()
        let refused = try await Self.postForm(
            s3, url: wrong.url, fields: wrong.fields.map { $0.0 == "content-type" ? ($0.0, "image/png") : $0 },
            file: jpeg, contentType: "image/png")
        #expect(refused.status == 403, "\(refused.text)")
    }

    @Test("params: PUT (the default) carries the ETag header and confirms", arguments: Backend.allCases)
    func paramsPut(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let r = try await Self.call(server, "GET", "/s3/params?filename=dog.jpg&type=image%2Fjpeg")
        #expect(r.status == 200, "\(r.text)")
        let j = try Self.json(r)
        #expect(j["method"]?.stringValue == "PUT")
        #expect(j["headers"]?["content-type"]?.stringValue == "image/jpeg")
        // Companion's answer always has fields.key and fields.bucket; Uppy reads them (issue 19, point 15).
        #expect(j["fields"]?["key"]?.stringValue == j["key"]?.stringValue)
        #expect(j["fields"]?["bucket"]?.stringValue == s3.bucket)
        #expect(j["fields"]?.objectValue?.count == 2)
        let url = try #require(j["url"]?.stringValue)
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        let (status, etag) = try await Self.put(s3, url: url, bytes: jpeg, contentType: "image/jpeg")
        #expect(status == 200)
        #expect(etag != nil)
        let (wrongStatus, _) = try await Self.put(s3, url: url, bytes: jpeg, contentType: "image/png")
        #expect(wrongStatus == 403)
        let key = try #require(j["key"]?.stringValue)
        let confirmed = try await Self.call(server, "POST", "/images", body: #"{"imageKey":"\#(key)"}"#)
        #expect(confirmed.status == 201, "\(confirmed.text)")
    }

    @Test("CORS: a preflight from an allowed origin passes; another origin gets no CORS headers; off by default")
    func cors() async throws {
        let (server, _) = try await Self.start(.sqlite)
        defer { server.stop() }
        let preflight =
            "Origin: \(Self.origin)\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: authorization, content-type, uppy-versions\r\n"
        let ok = try await Self.call(server, "OPTIONS", "/s3/multipart", headers: preflight)
        #expect(ok.status == 204)
        #expect(ok.header("Access-Control-Allow-Origin") == Self.origin)
        #expect(ok.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(ok.header("Access-Control-Allow-Headers") == "authorization, content-type, uppy-versions")
        #expect(ok.header("Access-Control-Allow-Credentials") == "true")
        #expect(ok.header("Access-Control-Max-Age") == "600")
        let part = try await Self.call(
            server, "OPTIONS", "/s3/multipart/abc/7",
            headers: "Origin: \(Self.origin)\r\nAccess-Control-Request-Method: GET\r\n")
        #expect(part.status == 204)
        let other = try await Self.call(
            server, "OPTIONS", "/s3/multipart",
            headers: preflight.replacingOccurrences(of: Self.origin, with: "https://evil.test"))
        #expect(other.status == 403)
        #expect(other.header("Access-Control-Allow-Origin") == nil)
        let badHeader = try await Self.call(
            server, "OPTIONS", "/s3/multipart",
            headers:
                "Origin: \(Self.origin)\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: x-evil\r\n"
        )
        #expect(badHeader.status == 403)
        let badMethod = try await Self.call(
            server, "OPTIONS", "/s3/multipart",
            headers: "Origin: \(Self.origin)\r\nAccess-Control-Request-Method: PUT\r\n")
        #expect(badMethod.status == 403)
        // Dev mode (the tests' default) allows its user header in preflights without cors.allowedHeaders
        // naming it, so a dev-mode page works with the defaults.
        let devHeader = try await Self.call(
            server, "OPTIONS", "/s3/multipart",
            headers:
                "Origin: \(Self.origin)\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type, x-user-id\r\n"
        )
        #expect(devHeader.status == 204)
        #expect(devHeader.header("Access-Control-Allow-Headers") == "content-type, x-user-id")
        // Outside dev mode the header is not allowed unless listed.
        let (noDev, _) = try await Self.start(.sqlite, extra: ["PRESIGN_AUTH_MODE": "none"])
        defer { noDev.stop() }
        let refusedDevHeader = try await Self.call(
            noDev, "OPTIONS", "/s3/multipart",
            headers:
                "Origin: \(Self.origin)\r\nAccess-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type, x-user-id\r\n"
        )
        #expect(refusedDevHeader.status == 403)
        // Actual requests: the allowed origin gets the header, another origin does not.
        let actual = try await Self.call(
            server, "GET", "/s3/params?filename=a.jpg&type=image%2Fjpeg", headers: "Origin: \(Self.origin)\r\n")
        #expect(actual.header("Access-Control-Allow-Origin") == Self.origin)
        #expect(actual.header("Vary") == "Origin")
        // A page reads a 429's Retry-After only when it is exposed.
        #expect(actual.header("Access-Control-Expose-Headers") == "Retry-After")
        let foreign = try await Self.call(
            server, "GET", "/s3/params?filename=a.jpg&type=image%2Fjpeg", headers: "Origin: https://evil.test\r\n")
        #expect(foreign.status == 200)
        #expect(foreign.header("Access-Control-Allow-Origin") == nil)

        // Without configured origins, OPTIONS stays 405 and nothing has CORS headers; without
        // uppy.enabled the routes are not there.
        let (plain, _) = try await ImagesFlowTests.start(.sqlite)
        defer { plain.stop() }
        let none = try await Self.call(plain, "OPTIONS", "/images", headers: preflight)
        #expect(none.status == 405)
        #expect(none.header("Access-Control-Allow-Origin") == nil)
        #expect(try await Self.call(plain, "POST", "/s3/multipart", body: "{}").status == 404)
    }
}

/// Real image files of `Tests/ImageProbeTests/Fixtures`, read from the source tree.
enum ImageFixture {
    static func bytes(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ImageProbeTests/Fixtures/\(name)")
        return Array(try Data(contentsOf: url))
    }
}

enum RequestKey {
    /// A lower-case UUID (the default IMAGE type's key, `{imageKey}`).
    static func isUUID(_ s: String) -> Bool { UUID(uuidString: s) != nil && s == s.lowercased() }
}
