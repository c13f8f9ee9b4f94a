import Crypto
import Foundation
import HTTPClient
import ObjectStoreTestSupport
import SigV4
import Testing

@testable import ObjectStore

/// The S3 client against a real Ceph RADOS Gateway, which verifies every SigV4 signature.
///
/// Needs `PRESIGN_TEST_S3_ENDPOINT` and friends (see `RGWEnvironment`); fails with instructions
/// when they are missing, unless `PRESIGN_SKIP_S3=1`. Every test writes under its own unique prefix.
@Suite(.enabled(if: !RGWEnvironment.skipped, "PRESIGN_SKIP_S3=1"))
struct S3ClientRGWTests {
    /// A client for the RGW, with `secret` instead of the real one when given, and `bucket`
    /// instead of the test bucket when given.
    static func client(
        secret: String? = nil, accessKey: String? = nil, bucket: String? = nil, sleeps: SleepRecorder = SleepRecorder()
    ) throws -> S3Client {
        let rgw = try RGWEnvironment.current()
        let options = try ObjectStoreOptions(
            endpoint: rgw.parsedEndpoint, bucket: bucket ?? rgw.bucket, requestTimeoutMs: 5000, maxRetries: 2)
        return S3Client(
            options: options, signer: try rgw.signer(secret: secret, accessKey: accessKey), now: wallClockSeconds,
            sleep: sleeps.sleep)
    }

    /// `count` bytes of a repeating pattern.
    static func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) } }

    /// True for 32 lower-case hexadecimal digits (a single-part ETag is the body's MD5).
    static func isMD5Hex(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    @Test func putThenHead() throws {
        let client = try Self.client()
        let key = uniquePrefix("put-head") + "photo.jpg"
        let stored = try client.put(key: key, bytes: Self.bytes(1000), contentType: "image/jpeg")
        let info = try #require(try client.head(key: key))
        #expect(info.size == 1000)
        #expect(info.contentType == "image/jpeg")
        #expect(info.etag == stored.etag)
        #expect(Self.isMD5Hex(info.etag), "\(info.etag)")
        try client.delete(key: key)
    }

    @Test func headOfAMissingKeyIsNil() throws {
        let client = try Self.client()
        #expect(try client.head(key: uniquePrefix("missing") + "nothing.jpg") == nil)
    }

    @Test func rangedGet() throws {
        let client = try Self.client()
        let key = uniquePrefix("range") + "data.bin"
        let body = Self.bytes(100)
        try client.put(key: key, bytes: body, contentType: "application/octet-stream")
        let part = try client.get(key: key, range: 10...19)
        #expect(part.bytes == Array(body[10...19]))
        #expect(part.info.size == 100)
        let whole = try client.get(key: key)
        #expect(whole.bytes == body)
        #expect(whole.info.size == 100)
        #expect(whole.info.etag == part.info.etag)
        try client.delete(key: key)
    }

    @Test func getOfAMissingKeyIsNoSuchKey() throws {
        let client = try Self.client()
        #expect(throws: ObjectStoreError.status(404, code: "NoSuchKey")) {
            try client.get(key: uniquePrefix("missing") + "x")
        }
    }

    @Test func copyThenHeadTheCopy() throws {
        let client = try Self.client()
        let prefix = uniquePrefix("copy")
        let source = prefix + "delete/profile/1/a.png"
        let destination = prefix + "profile/1/origin/a.png"
        let stored = try client.put(key: source, bytes: Self.bytes(321), contentType: "image/png")
        let copied = try client.copy(from: source, to: destination)
        #expect(copied.size == 321)
        #expect(copied.contentType == "image/png")
        #expect(try client.head(key: destination) == copied)
        #expect(try client.get(key: destination).bytes == Self.bytes(321))

        // Conditional on the source's ETag: the result is built from it, no HEAD needed.
        let sourceInfo = try #require(try client.head(key: source))
        #expect(sourceInfo.etag == stored.etag)
        let conditional = try client.copy(from: source, to: destination + ".2", expecting: sourceInfo)
        #expect(try client.head(key: destination + ".2") == conditional)

        // A source changed since its HEAD: 412, not a silent copy of other bytes.
        let stale = ObjectInfo(size: 321, contentType: "image/png", etag: String(repeating: "0", count: 32))
        #expect(throws: ObjectStoreError.status(412, code: "PreconditionFailed")) {
            try client.copy(from: source, to: destination + ".3", expecting: stale)
        }
        #expect(try client.head(key: destination + ".3") == nil)

        // REPLACE with a new content type.
        let retyped = try client.copy(from: source, to: destination + ".4", contentType: "image/jpeg")
        #expect(retyped.contentType == "image/jpeg")
        #expect(try client.head(key: destination + ".4")?.contentType == "image/jpeg")

        for key in [source, destination, destination + ".2", destination + ".4"] { try client.delete(key: key) }
    }

    @Test func copyOfAMissingSourceIsNoSuchKey() throws {
        let client = try Self.client()
        let prefix = uniquePrefix("copy-missing")
        #expect(throws: ObjectStoreError.status(404, code: "NoSuchKey")) {
            try client.copy(from: prefix + "absent", to: prefix + "target")
        }
    }

    @Test func deleteThenHeadIsNilAndDeletingAMissingKeyIsFine() throws {
        let client = try Self.client()
        let key = uniquePrefix("delete") + "x.jpg"
        try client.put(key: key, bytes: [1, 2, 3], contentType: "image/jpeg")
        #expect(try client.head(key: key) != nil)
        try client.delete(key: key)
        #expect(try client.head(key: key) == nil)
        try client.delete(key: key)
        try client.delete(key: uniquePrefix("delete") + "never-existed")
    }

    /// Keys whose bytes need care in the canonical URI, the request target and x-amz-copy-source
    /// (S3 "Creating object key names": safe characters, and characters that need special handling).
    static let awkwardKeys = [
        "with space.jpg", "유니코드/사진.png", "plus+sign.jpg", "100%.jpg", "tilde~name", "double//slash/x",
        "équipe/naïve.png", "a=b&c=d;e", "quote'and\"double", "paren(1)[2]{3}", "emoji-😀.png", "colon:at@comma,",
    ]

    @Test(arguments: awkwardKeys)
    func awkwardKeysRoundTrip(_ name: String) throws {
        let client = try Self.client()
        let key = uniquePrefix("keys") + name
        let body = Array(name.utf8)
        try client.put(key: key, bytes: body, contentType: "text/plain")
        #expect(try client.head(key: key)?.size == Int64(body.count), "\(name)")
        #expect(try client.get(key: key).bytes == body, "\(name)")
        let copy = key + ".copy"
        #expect(try client.copy(from: key, to: copy).size == Int64(body.count), "\(name)")
        #expect(try client.get(key: copy).bytes == body, "\(name)")
        try client.delete(key: key)
        try client.delete(key: copy)
        #expect(try client.head(key: key) == nil, "\(name)")
        #expect(try client.head(key: copy) == nil, "\(name)")
    }

    @Test func aWrongSecretIsSignatureDoesNotMatchWithoutRetry() throws {
        let sleeps = SleepRecorder()
        let client = try Self.client(secret: "not-the-secret-0000000000000000000000000", sleeps: sleeps)
        let key = uniquePrefix("wrong-secret") + "x"
        #expect(throws: ObjectStoreError.status(403, code: "SignatureDoesNotMatch")) {
            try client.put(key: key, bytes: [1], contentType: "image/jpeg")
        }
        #expect(throws: ObjectStoreError.status(403, code: "SignatureDoesNotMatch")) { try client.get(key: key) }
        // A HEAD answer has no body, so no code.
        #expect(throws: ObjectStoreError.status(403, code: nil)) { try client.head(key: key) }
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func headBucket() throws {
        try Self.client().headBucket()
        let missing = "no-such-bucket-" + UUID().uuidString.lowercased().prefix(8)
        let other = try Self.client(bucket: String(missing))
        do throws(ObjectStoreError) {
            try other.headBucket()
            Issue.record("HEAD of a missing bucket succeeded")
        } catch {
            guard case .status(404, _) = error else {
                Issue.record("expected 404, got \(error)")
                return
            }
        }
    }

    @Test func probeBucketReportsTheStatusAndTheServersClockEvenOnARefusal() throws {
        let now = Int64(Date().timeIntervalSince1970)
        let ok = try Self.client().probeBucket()
        #expect(ok.status == 200)
        let serverTime = try #require(ok.serverEpochSeconds)
        #expect(abs(serverTime - now) <= 5, "RGW on this machine shares its clock")
        let refused = try Self.client(secret: "wrong-secret-0000000000000000000000000000").probeBucket()
        #expect(refused.status == 403)
        #expect(refused.serverEpochSeconds != nil)
    }

    @Test("a refused probe names S3's error code (a HEAD has no body: the GET after it does)")
    func probeBucketNamesTheErrorCode() throws {
        #expect(try Self.client().probeBucket().errorCode == nil)
        let wrongSecret = try Self.client(secret: "wrong-secret-0000000000000000000000000000").probeBucket()
        #expect(wrongSecret.status == 403)
        #expect(wrongSecret.errorCode == "SignatureDoesNotMatch")
        let unknownKey = try Self.client(accessKey: "NOSUCHACCESSKEY00001").probeBucket()
        #expect(unknownKey.status == 403)
        #expect(unknownKey.errorCode == "InvalidAccessKeyId")
        let missing = try Self.client(bucket: "no-such-bucket-\(UUID().uuidString.lowercased().prefix(8))")
            .probeBucket()
        #expect(missing.status == 404)
        #expect(missing.errorCode == "NoSuchBucket")
    }

    @Test func everyOperationWorksOverTLSWithTheCAFileAndFailsWithoutIt() throws {
        let environment = ProcessInfo.processInfo.environment
        let tls = try #require(
            environment["PRESIGN_TEST_S3_TLS_ENDPOINT"].flatMap { $0.isEmpty ? nil : $0 },
            "PRESIGN_TEST_S3_TLS_ENDPOINT is not set: run the suite with scripts/test.sh (RGW with its HTTPS listener)")
        let ca = try #require(environment["PRESIGN_TEST_S3_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 })
        let rgw = try RGWEnvironment.current()
        func client(caFile: String?) throws -> S3Client {
            let options = ObjectStoreOptions(
                endpoint: try Endpoint(parsing: tls), bucket: rgw.bucket, requestTimeoutMs: 5000, maxRetries: 2,
                caFile: caFile)
            let signer = try Presigner(
                credentials: Credentials(accessKeyId: rgw.accessKey, secretAccessKey: Secret(rgw.secretKey)),
                region: rgw.region, endpoint: options.endpoint, addressing: .path)
            return S3Client(options: options, signer: signer, now: wallClockSeconds, sleep: { _ in })
        }
        let s3 = try client(caFile: ca)
        let key = "tls-\(UUID().uuidString)/a b+c.bin"
        let body = Self.bytes(70_000)  // more than one TLS record each way
        try s3.put(key: key, bytes: body, contentType: "application/octet-stream")
        #expect(try s3.head(key: key)?.size == Int64(body.count))
        #expect(try s3.get(key: key).bytes == body)
        let copy = key + ".copy"
        try s3.copy(from: key, to: copy)
        #expect(try s3.head(key: copy)?.size == Int64(body.count))
        try s3.delete(key: key)
        try s3.delete(key: copy)
        #expect(try s3.head(key: key) == nil)
        #expect(try s3.probeBucket().status == 200)
        // The system's CA store does not know the throw-away CA: a TLS failure, not an answer.
        let error = #expect(throws: ObjectStoreError.self) { try client(caFile: nil).headBucket() }
        guard case .tls? = error else {
            Issue.record("expected a TLS failure, got \(String(describing: error))")
            return
        }
    }

    @Test func aHostNameEndpointIsResolvedAndWorks() throws {
        let rgw = try RGWEnvironment.current()
        let endpoint = try Endpoint(parsing: "http://localhost:\(rgw.parsedEndpoint.port ?? 80)")
        let options = ObjectStoreOptions(endpoint: endpoint, bucket: rgw.bucket, requestTimeoutMs: 5000, maxRetries: 0)
        let signer = try Presigner(
            credentials: Credentials(accessKeyId: rgw.accessKey, secretAccessKey: Secret(rgw.secretKey)),
            region: rgw.region, endpoint: endpoint, addressing: .path)
        let s3 = S3Client(options: options, signer: signer, now: wallClockSeconds, sleep: { _ in })
        let key = "by-name-\(UUID().uuidString)"
        try s3.put(key: key, bytes: [1, 2, 3])
        #expect(try s3.head(key: key)?.size == 3)
        try s3.delete(key: key)
    }

    @Test func connectionsAreKeptAliveBetweenCalls() throws {
        let client = try Self.client()
        let rgw = try RGWEnvironment.current()
        let key = uniquePrefix("keepalive") + "x"
        try client.put(key: key, bytes: [1, 2], contentType: "image/jpeg")
        for _ in 0..<5 { _ = try client.head(key: key) }
        try client.delete(key: key)
        #expect(try client.http.idleConnectionCount(to: ServerAddress(endpoint: rgw.parsedEndpoint)) == 1)
    }
}
