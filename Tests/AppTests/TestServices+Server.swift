import Foundation
import TestSupport

/// The real services the end-to-end tests use: TestSupport's `TestServices`, the one reader of
/// `PRESIGN_TEST_S3_*` (`TestEnvironment.S3`, `.s3()` and `.skipS3` are its own).
typealias TestEnvironment = TestServices

extension TestServices.S3 {
    /// The endpoint's host and port (80 when it names none).
    var hostPort: (String, Int) {
        let rest = endpoint.replacingOccurrences(of: "http://", with: "")
        let parts = rest.split(separator: ":")
        return (String(parts[0]), parts.count > 1 ? Int(parts[1]) ?? 80 : 80)
    }
}

extension TestServices {
    /// Environment for a server pointed at RGW (or at a dead endpoint when only signing is tested, with
    /// no start-up check of the bucket), with a SQLite store in a temporary directory.
    static func serverEnvironment(s3: S3?, extra: [String: String] = [:]) -> (env: [String: String], dir: String) {
        let dir = Temporary.directory()
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
