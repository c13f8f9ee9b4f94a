import Crypto
import Foundation
import JSON
import ObjectStore
import ObjectStoreTestSupport
import SigV4
import TestSupport
import Testing

/// `s3.startupCheck` on the real binary against RGW (issue 19, point 3): a missing bucket or a wrong
/// secret is an error line at start naming the cause, `/readyz` fails with the same text until the
/// bucket answers, the gauge shows the outcome; `fail` exits 1; `off` sends storage nothing.
@Suite("presignd binary: the start-up check of the bucket (RGW)")
struct StartupCheckBinaryTests {
    static let wrongSecret = "not-the-secret-0000000000000000000000000"

    /// A bucket name no test has made.
    static func missingBucket() -> String { "no-such-bucket-" + UUID().uuidString.prefix(8).lowercased() }

    /// The parsed lines of `server`'s log whose `msg` is `message`.
    static func entries(_ server: ServerProcess, _ message: String) throws -> [JSONValue] {
        try server.logEntries().filter { $0["msg"]?.stringValue == message }
    }

    /// A GET on `path`, answered.
    static func get(_ server: ServerProcess, _ path: String) throws -> RawClient.Response {
        let c = try RawClient(port: server.port, timeoutMs: 15_000)
        c.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
        return try #require(c.readResponse())
    }

    /// The gauge's line for `outcome` in `/metrics`.
    static func gauge(_ server: ServerProcess, _ outcome: String) throws -> String? {
        let text = String(decoding: try get(server, "/metrics").body, as: UTF8.self)
        return text.split(separator: "\n").first {
            $0.hasPrefix("presignd_storage_bucket_check{outcome=\"\(outcome)\"}")
        }
        .map(String.init)
    }

    /// `/readyz`'s `storage` text and status.
    static func readyStorage(_ server: ServerProcess) throws -> (status: Int, storage: String?) {
        let r = try get(server, "/readyz")
        return (r.status, try JSONValue(parsing: r.body)["checks"]?["storage"]?.stringValue)
    }

    /// A client of RGW for `bucket`.
    static func client(_ s3: TestEnvironment.S3, bucket: String) throws -> S3Client {
        let endpoint = try Endpoint(parsing: s3.endpoint)
        let signer = try Presigner(
            credentials: Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey)),
            region: s3.region, endpoint: endpoint, addressing: .path)
        return S3Client(
            options: ObjectStoreOptions(endpoint: endpoint, bucket: bucket), signer: signer,
            now: { Int64(Date().timeIntervalSince1970) })
    }

    @Test("warn (the default), a missing bucket: an error line before listening, /readyz and the gauge until it exists")
    func missingBucketWarns() throws {
        let s3 = try TestEnvironment.s3()
        let bucket = Self.missingBucket()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_S3_BUCKET": bucket])
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        let cause = "NoSuchBucket (HTTP 404): the bucket s3.bucket does not exist"
        let failed = try Self.entries(server, "storage bucket check failed")
        #expect(failed.count == 1, "\(server.stderr)")
        let line = try #require(failed.first)
        #expect(line["level"]?.stringValue == "error")
        #expect(line["outcome"]?.stringValue == "no_such_bucket")
        #expect(line["cause"]?.stringValue == cause)
        #expect(line["bucket"]?.stringValue == bucket)
        #expect(line["endpointHost"]?.stringValue == "127.0.0.1")
        #expect(line["startupCheck"]?.stringValue == "warn")
        // Written before the server said it listens.
        let lines = server.stderr.split(separator: "\n")
        let checkIndex = try #require(lines.firstIndex { $0.contains(#""msg":"storage bucket check failed""#) })
        let listeningIndex = try #require(lines.firstIndex { $0.contains(#""msg":"listening""#) })
        #expect(checkIndex < listeningIndex)

        // /readyz fails with the same text, and the gauge says so.
        let before = try Self.readyStorage(server)
        #expect(before.status == 503)
        #expect(before.storage == cause)
        #expect(
            try Self.gauge(server, "no_such_bucket") == "presignd_storage_bucket_check{outcome=\"no_such_bucket\"} 1")
        #expect(try Self.gauge(server, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 0")

        // The bucket comes: the next probe is ready, and the gauge follows it.
        let rgw = try Self.client(s3, bucket: bucket)
        try rgw.createBucket()
        defer { try? rgw.deleteBucket() }
        let after = try Self.readyStorage(server)
        #expect(after.status == 200, "\(after)")
        #expect(after.storage == "ok")
        #expect(try Self.gauge(server, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 1")
        #expect(
            try Self.gauge(server, "no_such_bucket") == "presignd_storage_bucket_check{outcome=\"no_such_bucket\"} 0")
    }

    @Test("warn, a wrong secret: the error line names SignatureDoesNotMatch and what to check")
    func wrongSecretWarns() throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, extra: ["PRESIGN_S3_SECRET_ACCESS_KEY": Self.wrongSecret])
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        let line = try #require(try Self.entries(server, "storage bucket check failed").first, "\(server.stderr)")
        #expect(line["outcome"]?.stringValue == "credentials_refused")
        let cause = "SignatureDoesNotMatch (HTTP 403): s3.secretAccessKey is not the secret of s3.accessKeyId"
        #expect(line["cause"]?.stringValue == cause)
        #expect(!server.stderr.contains(Self.wrongSecret), "the secret never reaches the log")
        #expect(try Self.readyStorage(server).storage == cause)
        #expect(
            try Self.gauge(server, "credentials_refused")
                == "presignd_storage_bucket_check{outcome=\"credentials_refused\"} 1")
    }

    @Test("the right bucket and keys: one info line, the gauge at ok, no error")
    func fineBucket() throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        let checked = try Self.entries(server, "storage bucket checked")
        #expect(checked.count == 1)
        #expect(checked.first?["outcome"]?.stringValue == "ok")
        #expect(checked.first?["level"]?.stringValue == "info")
        #expect(try Self.entries(server, "storage bucket check failed").isEmpty)
        #expect(try Self.gauge(server, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 1")
    }

    @Test("fail: a missing bucket or a wrong secret exits 1 naming the cause; an unreachable store still serves")
    func failExits() throws {
        let s3 = try TestEnvironment.s3()
        for (extra, cause) in [
            (["PRESIGN_S3_BUCKET": Self.missingBucket()], "NoSuchBucket (HTTP 404)"),
            (["PRESIGN_S3_SECRET_ACCESS_KEY": Self.wrongSecret], "SignatureDoesNotMatch (HTTP 403)"),
        ] {
            var (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: extra)
            env["PRESIGN_S3_STARTUP_CHECK"] = "fail"
            let start = try ServerProcess(environment: env, expectListening: false)
            #expect(start.waitForExit(timeoutMs: 30_000) == 1, "\(start.stderr)")
            let line = try #require(start.waitForLine(containing: #""msg":"cannot start""#))
            #expect(line.contains("the bucket check failed (s3.startupCheck is fail): \(cause)"), "\(line)")
            #expect(!start.stderr.contains(#""msg":"listening""#))
        }
        // Storage that does not answer yet may come up later: logged, and the server serves.
        let closed = try Listening.freePort()
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_S3_STARTUP_CHECK": "fail", "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(closed)",
                "PRESIGN_S3_MAX_RETRIES": "0",
            ])
        let server = try ServerProcess(environment: env)
        defer { server.stop() }
        let line = try #require(try Self.entries(server, "storage bucket check failed").first, "\(server.stderr)")
        #expect(line["outcome"]?.stringValue == "unreachable")
        #expect(line["cause"]?.stringValue?.contains("Connection refused") == true, "\(line)")
    }

    @Test("off: storage hears nothing at start (counted at a proxy); warn through the same proxy asks it")
    func offSendsNothing() throws {
        let s3 = try TestEnvironment.s3()
        let (host, port) = s3.hostPort
        let proxy = try FaultProxy(upstreamHost: host, upstreamPort: port)
        defer { proxy.close() }
        var (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, extra: ["PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(proxy.port)"])
        env["PRESIGN_S3_STARTUP_CHECK"] = "off"
        let off = try ServerProcess(environment: env)
        // The check would run before the listening line: by now it would have been counted.
        #expect(proxy.requestCount == 0)
        #expect(!off.stderr.contains("storage bucket check"))
        #expect(try Self.gauge(off, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 0")
        off.stop()
        #expect(proxy.requestCount == 0)

        env["PRESIGN_S3_STARTUP_CHECK"] = "warn"
        let warn = try ServerProcess(environment: env)
        defer { warn.stop() }
        #expect(proxy.requestCount == 1, "one signed HEAD of the bucket, answered 200")
        #expect(try Self.entries(warn, "storage bucket checked").first?["outcome"]?.stringValue == "ok")
    }
}
