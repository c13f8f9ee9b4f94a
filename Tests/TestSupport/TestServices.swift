import Foundation

/// The real services the tests run against, read once from the environment scripts/test.sh exports:
/// the one reader of `PRESIGN_TEST_S3_*` (AppTests' `TestEnvironment` and ObjectStoreTests'
/// `RGWEnvironment` are typealiases of it and of its `S3`).
public enum TestServices {
    /// Ceph RGW's endpoint, credentials, bucket and region.
    public struct S3: Sendable, Equatable {
        /// `http://127.0.0.1:19000`.
        public var endpoint: String
        /// The access key ID.
        public var accessKey: String
        /// The secret access key.
        public var secretKey: String
        /// The bucket the tests write into (`uploads` when unset).
        public var bucket: String
        /// The signing region (`us-east-1` when unset).
        public var region: String
    }

    /// True when the S3 tests are switched off on purpose (`PRESIGN_SKIP_S3=1`).
    public static var skipS3: Bool { ProcessInfo.processInfo.environment["PRESIGN_SKIP_S3"] == "1" }

    /// RGW from `PRESIGN_TEST_S3_*`; the tests fail (not skip) when it is missing, unless PRESIGN_SKIP_S3=1.
    public static func s3() throws -> S3 {
        let e = ProcessInfo.processInfo.environment
        func value(_ name: String) -> String? { e[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let endpoint = value("PRESIGN_TEST_S3_ENDPOINT"), let accessKey = value("PRESIGN_TEST_S3_ACCESS_KEY"),
            let secretKey = value("PRESIGN_TEST_S3_SECRET_KEY")
        else {
            throw TestFailure(
                "PRESIGN_TEST_S3_ENDPOINT/ACCESS_KEY/SECRET_KEY are not set: these tests need a real S3 (Ceph RGW); run the suite with scripts/test.sh, which starts it, or export what `eval \"$(S3_PORT=19000 bash scripts/start-s3.sh)\"` prints as scripts/test.sh does (or set PRESIGN_SKIP_S3=1)"
            )
        }
        return S3(
            endpoint: endpoint, accessKey: accessKey, secretKey: secretKey,
            bucket: value("PRESIGN_TEST_S3_BUCKET") ?? "uploads", region: value("PRESIGN_TEST_S3_REGION") ?? "us-east-1"
        )
    }
}
