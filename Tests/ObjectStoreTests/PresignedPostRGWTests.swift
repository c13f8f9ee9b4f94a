import Crypto
import Foundation
import HTTPClient
import SigV4
import Testing

@testable import ObjectStore

/// Browser form uploads (presigned POST policies) and the bucket CORS rule, against the real RGW.
@Suite(.enabled(if: !RGWEnvironment.skipped, "PRESIGN_SKIP_S3=1"))
struct PresignedPostRGWTests {
    /// A `multipart/form-data` body: the fields in order, then the file (which S3 wants last).
    static func formBody(
        _ fields: [(name: String, value: String)], file: [UInt8], boundary: String
    ) -> [UInt8] {
        var body = [UInt8]()
        for (name, value) in fields {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        body += Array(
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\n"
                .utf8)
        body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
        body += file
        body += Array("\r\n--\(boundary)--\r\n".utf8)
        return body
    }

    /// POSTs the form `post` with `file`, the field `Content-Type` replaced by `contentType` when given.
    static func submit(
        _ post: PresignedPost, file: [UInt8], contentType: String? = nil, with client: S3Client
    ) throws -> HTTPResponse {
        let boundary = "presignd-\(UUID().uuidString)"
        let fields = post.fields.map { field in
            field.name == "Content-Type" ? (name: field.name, value: contentType ?? field.value) : field
        }
        return try S3ClientMultipartRGWTests.send(
            "POST", post.url, body: formBody(fields, file: file, boundary: boundary),
            headers: [("Content-Type", "multipart/form-data; boundary=\(boundary)")], with: client)
    }

    /// A form for `key`: `text/plain`, 0 to 1000 bytes, answered with 201.
    static func presign(_ key: String) throws -> PresignedPost {
        let rgw = try RGWEnvironment.current()
        return try rgw.signer().presignPost(
            PresignPostRequest(
                bucket: rgw.bucket, key: .exact(key), contentType: "text/plain", contentLength: 0...1000,
                successActionStatus: 201, expires: 600),
            now: wallClockSeconds())
    }

    @Test("a form under the size limit is stored and answered 201; the ETag is in the XML body only")
    func aFormUnderTheLimitIsStored() throws {
        let s3 = try S3ClientMultipartRGWTests.client()
        let key = uniquePrefix("post") + "note 1.txt"
        let file = Array("hello from a browser form".utf8)
        let response = try Self.submit(Self.presign(key), file: file, with: s3)
        #expect(response.status == 201)
        #expect(S3XML.rootElementName(response.body) == "PostResponse")
        #expect(S3XML.firstElementText("Key", in: response.body) == key)
        let bodyETag = try #require(S3XML.firstElementText("ETag", in: response.body))
        let stored = try #require(try s3.head(key: key))
        #expect(stored.size == Int64(file.count))
        #expect(stored.contentType == "text/plain")
        #expect(S3Client.unquote(bodyETag) == stored.etag)
        // The finding for issue 13, measured on Debian 12's radosgw 16.2: a POST's 201 answer has
        // no ETag header (AWS sends one; Ceph added it upstream in late 2023), and the body's ETag
        // is unquoted. A browser then cannot learn the ETag from the headers, so the routes make
        // presigned PUT the default for /s3/params on such stores (docs/object-store.md). If this
        // fails after an RGW upgrade, the header has arrived: update the doc and the default.
        #expect(response.header("ETag") == nil, "RGW now sends an ETag header on POST: \(response.header("ETag")!)")
        #expect(bodyETag == stored.etag, "the body's ETag is unquoted on RGW 16.2")
        try s3.delete(key: key)
    }

    @Test("a form over the size limit is refused with EntityTooLarge and stores nothing")
    func aFormOverTheLimitIsRefused() throws {
        let s3 = try S3ClientMultipartRGWTests.client()
        let key = uniquePrefix("post-large") + "big.txt"
        let response = try Self.submit(Self.presign(key), file: [UInt8](repeating: 0x61, count: 1001), with: s3)
        #expect(response.status == 400)
        #expect(S3XML.errorCode(response.body) == "EntityTooLarge")
        #expect(try s3.head(key: key) == nil)
        // Exactly the maximum is accepted (the range is inclusive).
        let exact = try Self.submit(Self.presign(key), file: [UInt8](repeating: 0x61, count: 1000), with: s3)
        #expect(exact.status == 201)
        try s3.delete(key: key)
    }

    @Test("a Content-Type other than the policy's is refused (AccessDenied)")
    func aWrongContentTypeIsRefused() throws {
        let s3 = try S3ClientMultipartRGWTests.client()
        let key = uniquePrefix("post-type") + "x.txt"
        let response = try Self.submit(Self.presign(key), file: [1, 2, 3], contentType: "image/png", with: s3)
        #expect(response.status == 403)
        #expect(S3XML.errorCode(response.body) == "AccessDenied")
        #expect(try s3.head(key: key) == nil)
    }

    @Test("a tampered policy or another key is refused")
    func aTamperedFormIsRefused() throws {
        let s3 = try S3ClientMultipartRGWTests.client()
        let key = uniquePrefix("post-tamper") + "x.txt"
        var post = try Self.presign(key)
        post.fields = post.fields.map { $0.name == "key" ? ($0.name, key + ".other") : $0 }
        let otherKey = try Self.submit(post, file: [1], with: s3)
        #expect(otherKey.status == 403)
        #expect(try s3.head(key: key + ".other") == nil)
    }

    @Test("scripts/rgw-cors.sh applies the rule: a preflight from the origin gets ETag exposed")
    func corsPreflightExposesETag() throws {
        let rgw = try RGWEnvironment.current()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let origin = "https://uploads.presignd.test"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [root.appendingPathComponent("scripts/rgw-cors.sh").path, origin]
        var environment = ProcessInfo.processInfo.environment
        environment["S3_ENDPOINT"] = try "http://\(rgw.parsedEndpoint.authority)"
        environment["S3_ACCESS_KEY"] = rgw.accessKey
        environment["S3_SECRET_KEY"] = rgw.secretKey
        environment["S3_BUCKET"] = rgw.bucket
        environment["S3_REGION"] = rgw.region
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "scripts/rgw-cors.sh failed (python3 with boto3 is needed)")

        let s3 = try S3ClientMultipartRGWTests.client()
        func preflight(from origin: String, method: String) throws -> HTTPResponse {
            try s3.http.send(
                HTTPRequest(
                    method: "OPTIONS", target: "/\(rgw.bucket)/some/video.mp4?partNumber=1&uploadId=x",
                    headers: [
                        ("Origin", origin), ("Access-Control-Request-Method", method),
                        ("Access-Control-Request-Headers", "content-type"),
                    ]),
                to: ServerAddress(endpoint: rgw.parsedEndpoint))
        }
        for method in ["PUT", "POST"] {
            let allowed = try preflight(from: origin, method: method)
            #expect(allowed.status == 200, "\(method)")
            #expect(allowed.header("Access-Control-Allow-Origin") == origin)
            let exposed = Set(
                (allowed.header("Access-Control-Expose-Headers") ?? "").split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces).lowercased()
                })
            #expect(exposed.isSuperset(of: ["etag", "location"]), "\(exposed)")
            #expect(allowed.header("Access-Control-Max-Age") == "3000")
        }
        let stranger = try preflight(from: "https://evil.example", method: "PUT")
        #expect(stranger.header("Access-Control-Allow-Origin") == nil)
        #expect(stranger.status == 403)
    }
}
