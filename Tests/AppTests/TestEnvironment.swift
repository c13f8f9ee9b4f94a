import Foundation
import TestSupport

/// The real services the end-to-end tests use, from the environment that scripts/test.sh exports.
enum TestEnvironment {
    /// The RGW endpoint and credentials; the tests fail (not skip) when they are missing, unless
    /// PRESIGN_SKIP_S3=1.
    struct S3: Sendable {
        let endpoint: String
        let accessKey: String
        let secretKey: String
        let bucket: String
        let region: String
        var hostPort: (String, Int) {
            let rest = endpoint.replacingOccurrences(of: "http://", with: "")
            let parts = rest.split(separator: ":")
            return (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 80 : 80)
        }
    }

    static var skipS3: Bool { TestServices.skipS3 }

    /// RGW, as TestSupport's `TestServices` reads it.
    static func s3() throws -> S3 {
        let s3 = try TestServices.s3()
        return S3(
            endpoint: s3.endpoint, accessKey: s3.accessKey, secretKey: s3.secretKey, bucket: s3.bucket,
            region: s3.region)
    }

    /// A fresh temporary directory.
    static func tempDir() -> String { TestServices.tempDir() }

    /// Environment for a server pointed at RGW (or at a dead endpoint when only signing is tested, with
    /// no start-up check of the bucket), with a SQLite store in a temporary directory.
    static func serverEnvironment(s3: S3?, extra: [String: String] = [:]) -> (env: [String: String], dir: String) {
        let dir = tempDir()
        var env: [String: String] = [
            "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3",
            "PRESIGN_S3_ACCESS_KEY_ID": s3?.accessKey ?? "AKIAIOSFODNN7EXAMPLE",
            "PRESIGN_S3_SECRET_ACCESS_KEY": s3?.secretKey ?? "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "PRESIGN_S3_ENDPOINT": s3?.endpoint ?? "http://127.0.0.1:9",
            "PRESIGN_S3_BUCKET": s3?.bucket ?? "uploads",
            "PRESIGN_S3_REGION": s3?.region ?? "us-east-1",
            // The flows send far more than a user's per-minute allowance; AuthFlowTests turns limits on.
            "PRESIGN_LIMITS_ENABLED": "false",
        ]
        // A dead endpoint (signing only) has no bucket to check at start; with RGW the check runs (warn).
        if s3 == nil { env["PRESIGN_S3_STARTUP_CHECK"] = "off" }
        for (k, v) in extra { env[k] = v }
        return (env, dir)
    }
}
