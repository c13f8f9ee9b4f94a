import Crypto
import Foundation
import HTTPClient
import SigV4
import Testing

@testable import ObjectStore

/// What the tests' Ceph RGW (16.2) checks of a declared digest, measured (docs/object-store.md,
/// "Integrity": the `ceph` row of the table rests on this), and the two proofs presignd asks of storage:
/// a HEAD with `x-amz-checksum-mode: ENABLED` and an object streamed and hashed (`digests`).
@Suite(.enabled(if: !RGWEnvironment.skipped, "PRESIGN_SKIP_S3=1"))
struct S3ClientDigestsRGWTests {
    /// A PUT of `body` through a URL presigned for `key` signing `headers`, sent with those headers.
    static func put(_ body: [UInt8], key: String, headers: [(name: String, value: String)], with s3: S3Client)
        throws -> HTTPResponse
    {
        let rgw = try RGWEnvironment.current()
        let url = try rgw.signer().presign(
            PresignRequest(
                method: "PUT", bucket: rgw.bucket, key: key, expires: 600,
                signedHeaders: headers + [("content-length", String(body.count))]),
            now: wallClockSeconds())
        return try S3ClientMultipartRGWTests.send(
            "PUT", url.url, body: body, headers: headers + [("Content-Length", String(body.count))], with: s3)
    }

    static func sha256(_ bytes: [UInt8]) -> String { Base64.encode(SHA256.hash(bytes).bytes) }
    static func md5(_ bytes: [UInt8]) -> String { Base64.encode(MD5.hash(bytes)) }

    @Test(
        "RGW refuses a body other than its signed Content-MD5 (BadDigest) and stores one under a wrong signed x-amz-checksum-sha256"
    )
    func whatRGWChecks() throws {
        let s3 = try S3ClientMultipartRGWTests.client()
        let prefix = "digests-\(UUID().uuidString)/"
        let declared = S3ClientMultipartRGWTests.bytes(4096, seed: 1)
        let sent = S3ClientMultipartRGWTests.bytes(4096, seed: 2)
        // Content-MD5 of other bytes: refused, nothing stored.
        let md5 = try Self.put(sent, key: prefix + "md5", headers: [("content-md5", Self.md5(declared))], with: s3)
        #expect(md5.status == 400 && String(decoding: md5.body, as: UTF8.self).contains("BadDigest"))
        #expect(try s3.head(key: prefix + "md5") == nil)
        // x-amz-checksum-sha256 of other bytes, signed: RGW 16 ignores it and stores the bytes.
        let sha = try Self.put(
            sent, key: prefix + "sha",
            headers: [("x-amz-checksum-sha256", Self.sha256(declared)), ("x-amz-sdk-checksum-algorithm", "SHA256")],
            with: s3)
        #expect(sha.status == 200, "RGW now checks x-amz-checksum-sha256: update the ceph preset and the table")
        // And a HEAD asking for checksums gets none back: the SHA-256 must be proven by reading.
        let info = try #require(try s3.headWithChecksums(key: prefix + "sha"))
        #expect(info.checksumSHA256 == nil)
        #expect(info.size == Int64(sent.count))
        // A single PUT's ETag is its MD5: the cheap proof of a declared MD5.
        #expect(info.md5FromETag.flatMap { Hex.decode($0) }.map { Base64.encode($0) } == Self.md5(sent))
        try s3.delete(key: prefix + "sha")
    }

    @Test("digests: a 3 MiB object streamed and hashed equals its bytes; If-Match of another ETag is a 412")
    func streamedDigests() throws {
        let s3 = try S3ClientMultipartRGWTests.client()
        let key = "digests-\(UUID().uuidString)/object"
        let bytes = S3ClientMultipartRGWTests.bytes(3 * S3ClientMultipartRGWTests.mebibyte + 7, seed: 3)
        #expect(try Self.put(bytes, key: key, headers: [], with: s3).status == 200)
        defer { try? s3.delete(key: key) }
        let etag = try #require(try s3.head(key: key)).etag
        let got = try #require(try s3.digests(key: key, ifMatch: etag))
        #expect(got.size == Int64(bytes.count))
        #expect(got.sha256 == SHA256.hash(bytes).bytes)
        #expect(got.md5 == MD5.hash(bytes))
        #expect(throws: ObjectStoreError.self) { try s3.digests(key: key, ifMatch: "0123456789abcdef0123456789abcdef") }
        #expect(try s3.digests(key: key + "-missing") == nil)
    }
}
