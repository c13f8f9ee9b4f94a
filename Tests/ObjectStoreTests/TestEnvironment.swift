import Crypto
import Foundation
import ObjectStore
import SigV4
import Synchronization
import TestSupport

/// The real Ceph RGW the S3 tests run against: TestSupport's `TestServices.S3`, the one reader of
/// `PRESIGN_TEST_S3_*`.
typealias RGWEnvironment = TestServices.S3

extension TestServices.S3 {
    /// True when the S3 tests are switched off on purpose (`PRESIGN_SKIP_S3=1`).
    static var skipped: Bool { TestServices.skipS3 }

    /// The environment, or an error that says how to provide it (or that its endpoint is no URL).
    static func current() throws -> TestServices.S3 {
        let s3 = try TestServices.s3()
        _ = try s3.parsedEndpoint
        return s3
    }

    /// The endpoint as ObjectStore's `Endpoint`.
    var parsedEndpoint: Endpoint { get throws { try Endpoint(parsing: endpoint) } }

    /// A signer for this RGW, with `secret` in place of the real secret when given.
    func signer(secret: String? = nil, accessKey otherKey: String? = nil) throws -> Presigner {
        try Presigner(
            credentials: Credentials(
                accessKeyId: otherKey ?? accessKey, secretAccessKey: Secret(secret ?? secretKey)),
            region: region, endpoint: parsedEndpoint, addressing: .path)
    }
}

/// Records the retry waits an `S3Client` asks for, instead of sleeping.
final class SleepRecorder: Sendable {
    /// The waits, in milliseconds.
    private let waits = Mutex<[Int]>([])

    /// The waits asked for so far.
    var recorded: [Int] { waits.withLock { $0 } }

    /// A sleep function that records and returns at once.
    var sleep: @Sendable (Int) -> Void { { [self] milliseconds in waits.withLock { $0.append(milliseconds) } } }
}

/// The wall clock in epoch seconds (the clock the signer is given in tests).
@Sendable func wallClockSeconds() -> Int64 { Int64(Date().timeIntervalSince1970) }

/// A prefix no other run uses, so concurrent runs against one RGW do not collide.
func uniquePrefix(_ name: String) -> String {
    "objectstore-tests/\(name)-\(UUID().uuidString.lowercased())/"
}

extension ObjectStoreError {
    /// The case's name (`connection`, `malformedResponse`, …), for tests that name the error they expect
    /// without pinning its message.
    var caseName: String {
        switch self {
        case .timeout: return "timeout"
        case .connection: return "connection"
        case .tls: return "tls"
        case .status: return "status"
        case .malformedResponse: return "malformedResponse"
        case .signing: return "signing"
        case .multipart: return "multipart"
        }
    }
}
