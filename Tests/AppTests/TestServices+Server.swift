import Crypto
import Foundation
import ObjectStore
import SigV4
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

    /// The test's own S3 client of RGW (path-style, the test's keys), to look at and make objects and
    /// buckets: at `endpoint` (RGW itself, or a fault proxy in front of it), for `bucket`, with
    /// `maxRetries` (the client's default when nil).
    func client(endpoint: String? = nil, bucket: String? = nil, maxRetries: Int? = nil) throws -> S3Client {
        let at = try Endpoint(parsing: endpoint ?? self.endpoint)
        let signer = try Presigner(
            credentials: Credentials(accessKeyId: accessKey, secretAccessKey: Secret(secretKey), sessionToken: nil),
            region: region, endpoint: at, addressing: .path)
        var options = ObjectStoreOptions(endpoint: at, bucket: bucket ?? self.bucket)
        if let maxRetries { options.maxRetries = maxRetries }
        return S3Client(options: options, signer: signer, now: { Int64(Date().timeIntervalSince1970) })
    }

    /// `method` (GET, HEAD) of the object `key`, through a URL the test presigns, as RGW answers it.
    func fetch(_ method: String = "GET", key: String) async throws -> WireResponse {
        let signer = try Presigner(
            credentials: Credentials(accessKeyId: accessKey, secretAccessKey: Secret(secretKey), sessionToken: nil),
            region: region, endpoint: Endpoint(parsing: endpoint), addressing: .path)
        let url = try signer.presign(
            PresignRequest(method: method, bucket: bucket, key: key, expires: 60),
            now: Int64(Date().timeIntervalSince1970)
        ).url
        let (host, port) = hostPort
        let target = String(url.dropFirst(endpoint.count))
        return try await SocketTarget(host: host, port: port).exchange(
            "\(method) \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n")
    }
}

extension TestServices {
    /// Environment for a server pointed at RGW (or at a dead endpoint when only signing is tested, with
    /// no start-up check of the bucket), its own calls to storage through `proxy` when given, with a
    /// SQLite store in a temporary directory.
    static func serverEnvironment(s3: S3?, proxy: FaultProxy? = nil, extra: [String: String] = [:]) -> (
        env: [String: String], dir: String
    ) {
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
        if let s3, let proxy { for (k, v) in proxy.serverSettings(s3) { env[k] = v } }
        for (k, v) in extra { env[k] = v }
        return (env, dir)
    }
}

extension FaultProxy {
    /// A fault proxy in front of `s3`'s RGW (forwarding everything until the test sets its rules).
    convenience init(inFrontOf s3: TestServices.S3) throws {
        let (host, port) = s3.hostPort
        try self.init(upstreamHost: host, upstreamPort: port)
    }

    /// The settings that send a server's own calls to storage through this proxy while its URLs name
    /// RGW itself (clients upload straight to it).
    func serverSettings(_ s3: TestServices.S3) -> [String: String] {
        ["PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(port)", "PRESIGN_S3_PUBLIC_ENDPOINT": s3.endpoint]
    }
}
