import Crypto
import Foundation
import SigV4
import TestSupport
import Testing

@testable import ObjectStore

/// `BucketCheck`, the typed outcome of a signed HEAD of the bucket: the pure mapping, then the real
/// answers of Ceph RGW (a missing bucket, a wrong secret, an unknown key) and of a closed port.
@Suite struct BucketCheckTests {
    /// HEAD status and the code the GET after it learnt → the outcome. Codes and statuses as AWS S3
    /// documents them for HeadBucket/ListObjects ("Error responses", S3 API reference) and as RGW 16.2
    /// answers them (S3ClientRGWTests.probeBucketNamesTheErrorCode).
    static let vectors: [(status: Int, code: String?, outcome: BucketCheck)] = [
        (200, nil, .ok),
        (404, "NoSuchBucket", .noSuchBucket),
        (404, nil, .noSuchBucket),
        (403, "InvalidAccessKeyId", .credentialsRefused(status: 403, code: "InvalidAccessKeyId")),
        (403, "SignatureDoesNotMatch", .credentialsRefused(status: 403, code: "SignatureDoesNotMatch")),
        (403, "AccessDenied", .credentialsRefused(status: 403, code: "AccessDenied")),
        (403, "RequestTimeTooSkewed", .refused(status: 403, code: "RequestTimeTooSkewed")),
        (403, nil, .refused(status: 403, code: nil)),
        (301, "PermanentRedirect", .refused(status: 301, code: "PermanentRedirect")),
        (503, "SlowDown", .refused(status: 503, code: "SlowDown")),
    ]

    @Test func statusAndCodeMapToTheOutcome() {
        for v in Self.vectors {
            #expect(BucketCheck(status: v.status, code: v.code) == v.outcome, "\(v.status) \(v.code ?? "nil")")
        }
    }

    @Test func descriptionsNameTheCauseAndWhatToCheck() {
        #expect(BucketCheck.ok.description == "ok")
        #expect(BucketCheck.noSuchBucket.description == "NoSuchBucket (HTTP 404): the bucket s3.bucket does not exist")
        #expect(
            BucketCheck.credentialsRefused(status: 403, code: "SignatureDoesNotMatch").description
                == "SignatureDoesNotMatch (HTTP 403): s3.secretAccessKey is not the secret of s3.accessKeyId")
        #expect(
            BucketCheck.credentialsRefused(status: 403, code: "InvalidAccessKeyId").description
                == "InvalidAccessKeyId (HTTP 403): storage does not know s3.accessKeyId")
        #expect(
            BucketCheck.credentialsRefused(status: 403, code: "AccessDenied").description
                == "AccessDenied (HTTP 403): the credentials may not use s3.bucket")
        #expect(BucketCheck.refused(status: 503, code: nil).description == "HTTP 503")
        #expect(BucketCheck.refused(status: 503, code: "SlowDown").description == "SlowDown (HTTP 503)")
        // The other refusals a misconfiguration gives name what to check too (the texts /readyz shows).
        #expect(
            BucketCheck.refused(status: 403, code: "RequestTimeTooSkewed").description
                == "RequestTimeTooSkewed (HTTP 403): this server's clock is too far from storage's")
        #expect(
            BucketCheck.refused(status: 301, code: "PermanentRedirect").description
                == "PermanentRedirect (HTTP 301): s3.bucket is in another region or behind another endpoint (s3.region, s3.endpoint)"
        )
        #expect(
            BucketCheck.refused(status: 400, code: "AuthorizationHeaderMalformed").description
                == "AuthorizationHeaderMalformed (HTTP 400): s3.region is not the bucket's region")
        #expect(
            BucketCheck.refused(status: 400, code: "ExpiredToken").description
                == "ExpiredToken (HTTP 400): s3.sessionToken has expired")
        #expect(
            BucketCheck.refused(status: 400, code: "InvalidToken").description
                == "InvalidToken (HTTP 400): s3.sessionToken is not valid")
        #expect(
            BucketCheck.unreachable(.connection("connect to 127.0.0.1:1: Connection refused")).description
                == "connection failed: connect to 127.0.0.1:1: Connection refused")
        #expect(
            [
                BucketCheck.ok, .noSuchBucket, .credentialsRefused(status: 403, code: "AccessDenied"),
                .refused(status: 500, code: nil), .unreachable(.timeout("x")),
            ].map(\.name)
                == ["ok", "no_such_bucket", "credentials_refused", "refused", "unreachable"])
    }

    @Test func aClosedPortIsUnreachableAfterTheRetries() throws {
        let server = try FakeServer { _, _ in .close }
        let port = server.port
        server.stop()  // nothing listens there now
        let endpoint = try Endpoint(parsing: "http://127.0.0.1:\(port)")
        let sleeps = SleepRecorder()
        let client = S3Client(
            options: ObjectStoreOptions(endpoint: endpoint, bucket: "uploads", requestTimeoutMs: 2000, maxRetries: 2),
            signer: try Presigner(
                credentials: Credentials(accessKeyId: "AKID", secretAccessKey: Secret("secret")), region: "us-east-1",
                endpoint: endpoint, addressing: .path),
            now: wallClockSeconds, sleep: sleeps.sleep)
        let outcome = client.checkBucket()
        guard case .unreachable(.connection(let detail)) = outcome else {
            Issue.record("expected unreachable, got \(outcome)")
            return
        }
        #expect(detail.contains("refused"))
        #expect(sleeps.recorded.count == 2, "a connection failure is retried (s3.maxRetries)")
    }
}

/// `S3Client.checkBucket()` against the real RGW: every refusal named.
@Suite(.enabled(if: !RGWEnvironment.skipped, "PRESIGN_SKIP_S3=1"))
struct BucketCheckRGWTests {
    @Test func theTestBucketWithTheRightCredentialsIsOK() throws {
        #expect(try S3ClientRGWTests.client().checkBucket() == .ok)
    }

    @Test func aMissingBucketIsNoSuchBucket() throws {
        let missing = "no-such-bucket-" + UUID().uuidString.lowercased().prefix(8)
        #expect(try S3ClientRGWTests.client(bucket: String(missing)).checkBucket() == .noSuchBucket)
    }

    @Test func aWrongSecretIsSignatureDoesNotMatch() throws {
        let sleeps = SleepRecorder()
        let client = try S3ClientRGWTests.client(secret: "wrong-secret-0000000000000000000000000000", sleeps: sleeps)
        #expect(client.checkBucket() == .credentialsRefused(status: 403, code: "SignatureDoesNotMatch"))
        #expect(sleeps.recorded.isEmpty, "a refusal is not retried")
    }

    @Test func anUnknownAccessKeyIsInvalidAccessKeyId() throws {
        let client = try S3ClientRGWTests.client(accessKey: "NOSUCHACCESSKEY00001")
        #expect(client.checkBucket() == .credentialsRefused(status: 403, code: "InvalidAccessKeyId"))
    }
}
