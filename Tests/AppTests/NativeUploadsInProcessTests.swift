import AppTestSupport
import Foundation
import JSON
import ObjectStore
import Records
import System
import TestSupport
import Testing

/// The native multipart API for apps (`POST /uploads` and its routes) end to end: the application in
/// process, a real RGW, each records backend. Parts are PUT to the up-front URLs as a background session
/// would send them.
@Suite("Native uploads: /uploads", .serialized, .onDispatchThreads)
struct NativeUploadsInProcessTests {
    static let mib = 1024 * 1024

    static func start(_ backend: Backend, extra: [String: String] = [:]) async throws -> (
        InProcessApp, TestEnvironment.S3
    ) {
        var more = ["PRESIGN_MULTIPART_ENABLED": "true"]
        for (k, v) in extra { more[k] = v }
        return try await ImagesFlowTests.start(backend, extra: more)
    }

    static func call(
        _ server: some HTTPTarget, _ method: String, _ path: String, user: String = "42", body: String? = nil
    )
        async throws -> WireResponse
    {
        try await UppyFlowTests.call(server, method, path, user: user, body: body)
    }

    /// `POST /uploads` of a VIDEO of `size` bytes: the answer's JSON.
    static func create(_ server: some HTTPTarget, size: Int, partSize: Int? = nil, user: String = "42")
        async throws -> JSONValue
    {
        let part = partSize.map { #","partSize":\#($0)"# } ?? ""
        let r = try await call(
            server, "POST", "/uploads", user: user,
            body: #"{"type":"VIDEO","contentType":"video/mp4","filename":"clip.mp4","size":\#(size)\#(part)}"#)
        #expect(r.status == 201, "\(r.text)")
        return try JSONValue(parsing: r.body)
    }

    /// The parts of an answer: (number, url, size).
    static func parts(_ j: JSONValue) throws -> [(number: Int, url: String, size: Int)] {
        try #require(j["parts"]?.arrayValue).map { p in
            (
                try #require(p["partNumber"]?.intValue), try #require(p["url"]?.stringValue),
                try #require(p["size"]?.intValue)
            )
        }
    }

    /// PUTs `bytes[range]` of part `part` to its URL; expects 200.
    static func put(
        _ s3: TestEnvironment.S3, _ part: (number: Int, url: String, size: Int), _ bytes: [UInt8], count: Int? = nil
    )
        async throws
    {
        let start = (part.number - 1) * 5 * mib
        let slice = Array(bytes[start..<min(bytes.count, start + (count ?? part.size))])
        let (status, _) = try await UppyFlowTests.put(s3, url: part.url, bytes: slice)
        #expect(status == 200)
    }

    static func payload(_ count: Int) -> [UInt8] { SplitMix64.bytes(count, seed: 39) }

    @Test("one part missing: listed, re-signed, sent, completed; the record read back", arguments: Backend.allCases)
    func missingPart(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let size = 11 * Self.mib
        let bytes = Self.payload(size)
        let created = try await Self.create(server, size: size, partSize: 5 * Self.mib)
        let id = try #require(created["uploadId"]?.stringValue)
        let parts = try Self.parts(created)
        #expect(parts.map(\.number) == [1, 2, 3])
        #expect(parts.map(\.size) == [5 * Self.mib, 5 * Self.mib, Self.mib])
        let expiresAt = try #require(created["expiresAt"]?.stringValue)
        #expect(expiresAt.hasSuffix("Z"))
        try await Self.put(s3, parts[0], bytes)
        try await Self.put(s3, parts[2], bytes)

        let s = try await Self.call(server, "GET", "/uploads/\(id)")
        #expect(s.status == 200, "\(s.text)")
        let status = try JSONValue(parsing: s.body)
        #expect(status["state"]?.stringValue == "uploading")
        #expect(status["missingParts"]?.arrayValue?.compactMap(\.intValue) == [2])
        #expect(status["receivedBytes"]?.intValue == 6 * Self.mib)
        #expect(status["contiguousBytes"]?.intValue == 5 * Self.mib)

        let early = try await Self.call(server, "POST", "/uploads/\(id)/complete", body: "{}")
        #expect(early.status == 400, "\(early.text)")
        #expect(early.text.contains("INVALID_PART"))

        let signed = try await Self.call(server, "POST", "/uploads/\(id)/sign", body: #"{"missing":true}"#)
        #expect(signed.status == 200, "\(signed.text)")
        let again = try Self.parts(try JSONValue(parsing: signed.body))
        #expect(again.map(\.number) == [2])
        try await Self.put(s3, again[0], bytes)

        let done = try await Self.call(server, "POST", "/uploads/\(id)/complete", body: "{}")
        #expect(done.status == 200, "\(done.text)")
        let record = try #require(try JSONValue(parsing: done.body)["record"])
        #expect(record["size"]?.intValue == size)
        #expect(record["type"]?.stringValue == "VIDEO")
        let recordId = try #require(record["id"]?.stringValue)

        let repeated = try await Self.call(server, "POST", "/uploads/\(id)/complete", body: "{}")
        #expect(try JSONValue(parsing: repeated.body)["record"]?["id"]?.stringValue == recordId)
        let after = try JSONValue(parsing: try await Self.call(server, "GET", "/uploads/\(id)").body)
        #expect(after["state"]?.stringValue == "completed")
        #expect(after["record"]?["id"]?.stringValue == recordId)
        let listed = try await Self.call(server, "GET", "/images")
        #expect(listed.text.contains(recordId))
        // Another owner's upload is no upload of theirs.
        #expect(try await Self.call(server, "GET", "/uploads/\(id)", user: "7").status == 404)
        #expect(try await Self.call(server, "POST", "/uploads/\(id)/complete", user: "7", body: "{}").status == 404)
    }

    @Test(
        "60 MiB through the up-front URLs, the client gone: the server completes it and records it",
        arguments: Backend.allCases)
    func serverCompletes(backend: Backend) async throws {
        let (server, s3) = try await Self.start(
            backend,
            extra: [
                "PRESIGN_MULTIPART_AUTO_COMPLETE_AFTER_SECONDS": "0", "PRESIGN_MULTIPART_CHECK_EVERY_SECONDS": "1",
                "PRESIGN_RECORDS_JANITOR_INTERVAL_MS": "1000",
            ])
        defer { server.stop() }
        let size = 60 * Self.mib
        let bytes = Self.payload(size)
        let created = try await Self.create(server, size: size)
        let id = try #require(created["uploadId"]?.stringValue)
        let parts = try Self.parts(created)
        #expect(parts.count == 12)
        for part in parts { try await Self.put(s3, part, bytes) }
        var state: JSONValue?
        for _ in 0..<60 {
            let j = try JSONValue(parsing: try await Self.call(server, "GET", "/uploads/\(id)").body)
            if j["state"]?.stringValue == "completed" {
                state = j
                break
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        let done = try #require(state, "not completed by the server")
        #expect(done["record"]?["size"]?.intValue == size)
        #expect(done["record"]?["type"]?.stringValue == "VIDEO")
        #expect(done["record"]?["contentType"]?.stringValue == "video/mp4")
        // The 60 MiB go again (the test RGW's disk is small).
        let id2 = try #require(done["record"]?["id"]?.stringValue)
        #expect(try await Self.call(server, "DELETE", "/images/\(id2)").status == 204)
    }

    /// Which call finds an upload that storage completed for a server that stopped before its record.
    enum Finisher: String, CaseIterable, Sendable {
        case status
        case janitor
    }

    @Test(
        "completed in storage, the server gone before its record: the status call or the janitor proves and records it",
        arguments: Backend.allCases, Finisher.allCases)
    func completedBeforeItsRecord(backend: Backend, finisher: Finisher) async throws {
        // The server's own completion waits an hour after the last part, so that it never completes the
        // upload before the test does in storage below; an upload storage no longer lists is proven at
        // once, whatever that wait (the janitor looks every second in the janitor case).
        var extra = ["PRESIGN_MULTIPART_AUTO_COMPLETE_AFTER_SECONDS": "3600"]
        if finisher == .janitor {
            extra["PRESIGN_MULTIPART_CHECK_EVERY_SECONDS"] = "1"
            extra["PRESIGN_RECORDS_JANITOR_INTERVAL_MS"] = "1000"
        }
        let (server, s3) = try await Self.start(backend, extra: extra)
        defer { server.stop() }
        let bytes = Self.payload(6 * Self.mib)
        let created = try await Self.create(server, size: bytes.count, partSize: 5 * Self.mib)
        let id = try #require(created["uploadId"]?.stringValue)
        let key = try #require(created["key"]?.stringValue)
        for part in try Self.parts(created) { try await Self.put(s3, part, bytes) }
        // What a server killed between storage's completion and its record leaves: the completion's
        // parts noted in the ledger, the object complete in storage, no record.
        let storage = try s3.client()
        let listed = try storage.listParts(key: key, uploadId: id)
        #expect(listed.count == 2)
        let sent = listed.map { (partNumber: $0.partNumber, etag: $0.etag) }
        let notes = sent.map { MultipartUploadEntry.Part(number: $0.partNumber, etag: $0.etag) }
        let noted = try await onThread {
            try server.core.store.noteCompletion(
                objectKey: key, uploadId: id, parts: notes, nowMs: WallClock.epochMilliseconds())
        }
        #expect(noted)
        _ = try storage.completeMultipartUpload(key: key, uploadId: id, parts: sent)

        let recordId: String
        switch finisher {
        case .status:
            let s = try await Self.call(server, "GET", "/uploads/\(id)")
            #expect(s.status == 200, "\(s.text)")
            let j = try JSONValue(parsing: s.body)
            #expect(j["state"]?.stringValue == "completed")
            #expect(j["record"]?["size"]?.intValue == bytes.count)
            recordId = try #require(j["record"]?["id"]?.stringValue)
        case .janitor:
            // Only the record list is read: the janitor alone finishes it.
            var found: String?
            _ = await eventually(within: 30, pollMs: 250) {
                guard let r = try? await Self.call(server, "GET", "/images"),
                    let items = try? JSONValue(parsing: r.body)["items"]?.arrayValue, let first = items.first
                else { return false }
                found = first["id"]?.stringValue
                return found != nil
            }
            recordId = try #require(found, "the janitor did not record the upload")
            let s = try JSONValue(parsing: try await Self.call(server, "GET", "/uploads/\(id)").body)
            #expect(s["state"]?.stringValue == "completed")
            #expect(s["record"]?["id"]?.stringValue == recordId)
        }
        let images = try JSONValue(parsing: try await Self.call(server, "GET", "/images").body)
        #expect(images["items"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == [recordId])
        #expect(try await Self.call(server, "DELETE", "/images/\(recordId)").status == 204)
    }

    @Test("a part over its signed size: refused, aborted, and the state says why", arguments: Backend.allCases)
    func partOverSize(backend: Backend) async throws {
        let (server, s3) = try await Self.start(backend)
        defer { server.stop() }
        let bytes = Self.payload(8 * Self.mib)
        let created = try await Self.create(server, size: 6 * Self.mib, partSize: 5 * Self.mib)
        let id = try #require(created["uploadId"]?.stringValue)
        let parts = try Self.parts(created)
        try await Self.put(s3, parts[0], bytes)
        // Part 2 was signed for 1 MiB; 3 MiB are sent.
        try await Self.put(s3, parts[1], bytes, count: 3 * Self.mib)
        let r = try await Self.call(server, "POST", "/uploads/\(id)/complete", body: "{}")
        #expect(r.status == 400, "\(r.text)")
        #expect(r.text.contains("SIZE_MISMATCH"))
        let s = try JSONValue(parsing: try await Self.call(server, "GET", "/uploads/\(id)").body)
        #expect(s["state"]?.stringValue == "aborted")
        #expect(s["reason"]?.stringValue?.contains("over the 1048576") == true)
        // Gone from storage: signing again tells the client to start a new upload.
        let sign = try await Self.call(server, "POST", "/uploads/\(id)/sign", body: #"{"parts":[1]}"#)
        #expect(sign.status == 404)
        #expect(sign.text.contains("start again"))
        // An abort of an upload already gone answers 200.
        #expect(try await Self.call(server, "DELETE", "/uploads/\(id)").status == 200)
    }

    @Test("bad input: clear 4xx answers, never a 500")
    func badInput() async throws {
        let (server, _) = try await Self.start(.sqlite)
        defer { server.stop() }
        func post(_ body: String) async throws -> WireResponse {
            try await Self.call(server, "POST", "/uploads", body: body)
        }
        let base = #""type":"VIDEO","contentType":"video/mp4""#
        for (body, field) in [
            (#"{\#(base),"size":0}"#, "size"), (#"{\#(base),"size":-5}"#, "size"),
            (#"{\#(base),"size":5497558138881}"#, "size"), (#"{\#(base)}"#, "size"),
            (#"{\#(base),"size":"12"}"#, "size"),
            (#"{\#(base),"size":5497558138880,"partSize":5242880}"#, "partSize"),
            (#"{\#(base),"size":10485760,"partSize":1024}"#, "partSize"),
            (#"{"type":"VIDEO","size":10485760}"#, "contentType"),
            (#"{\#(base),"size":1,"checksumSHA256":""}"#, "checksumSHA256"),
        ] {
            let r = try await post(body)
            #expect(r.status == 422, "\(body): \(r.text)")
            #expect(r.text.contains(field), "\(body): \(r.text)")
        }
        let malformed = try await post(#"{"size": 12"#)
        #expect(malformed.status == 400, "\(malformed.text)")
        // Over the type's limit: refused before any part.
        let big = try await post(#"{"type":"IMAGE","contentType":"image/jpeg","size":104857600}"#)
        #expect((400..<500).contains(big.status), "\(big.text)")
        #expect(try await Self.call(server, "GET", "/uploads/nonesuch").status == 404)
        #expect(try await Self.call(server, "POST", "/uploads/nonesuch/complete", body: "{}").status == 404)
        #expect(try await Self.call(server, "DELETE", "/uploads/nonesuch").status == 404)
        let created = try await Self.create(server, size: 6 * Self.mib)
        let id = try #require(created["uploadId"]?.stringValue)
        for body in [#"{"parts":[]}"#, #"{"parts":[0]}"#, #"{"parts":[10001]}"#, #"{"parts":"1"}"#, "{}"] {
            let r = try await Self.call(server, "POST", "/uploads/\(id)/sign", body: body)
            #expect(r.status == 422, "\(body): \(r.text)")
        }
        let outside = try await Self.call(server, "POST", "/uploads/\(id)/sign", body: #"{"parts":[3]}"#)
        #expect(outside.status == 400, "\(outside.text)")
        #expect(try await Self.call(server, "DELETE", "/uploads/\(id)").status == 200)
        #expect(try await Self.call(server, "DELETE", "/uploads/\(id)").status == 200)
    }

    @Test("URLs signed up front never outlive temporary credentials: each is clamped, expiresAt says so")
    func clampedToCredentials() async throws {
        let s3 = try TestEnvironment.s3()
        // Credentials that expire in an hour, well before the six hours a part URL asks for.
        let agent = try CredentialsChainTests.containerAgent(s3, lifetime: 3600)
        defer { agent.stop() }
        let server = try await InProcessApp(
            environment: CredentialsChainTests.containerEnvironment(
                s3, agent: agent, extra: ["PRESIGN_MULTIPART_ENABLED": "true"]))
        defer { server.stop() }
        let before = Int(Date().timeIntervalSince1970)
        let bytes = Self.payload(6 * Self.mib)
        let created = try await Self.create(server, size: bytes.count)
        let id = try #require(created["uploadId"]?.stringValue)
        let expiresAt = try CredentialsChainTests.expiresAt(created)
        #expect(expiresAt <= before + 3600 + 5 && expiresAt >= before + 3600 - 60, "\(expiresAt - before)")
        for part in try Self.parts(created) {
            let q = try CredentialsChainTests.query(part.url)
            let expires = try #require(q["X-Amz-Expires"])
            let lifetime = try #require(Int(expires))
            #expect(lifetime < 21_600)
            #expect(try CredentialsChainTests.signedAt(q) + lifetime <= before + 3600 + 5)
            try await Self.put(s3, part, bytes)
        }
        let done = try await Self.call(server, "POST", "/uploads/\(id)/complete", body: "{}")
        #expect(done.status == 200, "\(done.text)")
    }

    @Test("a size over the owner's daily bytes is refused before any part, and nothing stays open in storage")
    func quotaBeforeAnyPart() async throws {
        let (server, s3) = try await Self.start(
            .sqlite,
            extra: ["PRESIGN_LIMITS_ENABLED": "true", "PRESIGN_LIMITS_BYTES_PER_USER_PER_DAY": "\(10 * Self.mib)"])
        defer { server.stop() }
        let user = String(Int.random(in: 100_000...999_999))
        let r = try await Self.call(
            server, "POST", "/uploads", user: user,
            body: #"{"type":"VIDEO","contentType":"video/mp4","size":\#(11 * Self.mib)}"#)
        #expect(r.status == 429, "\(r.text)")
        #expect(r.text.contains("QUOTA_EXCEEDED"))
        let open = try s3.client().listMultipartUploads(
            prefix: "video/\(user)/", keyMarker: nil, uploadIdMarker: nil, maxUploads: 10)
        #expect(open.uploads.isEmpty, "\(open.uploads.map(\.key))")
    }
}
