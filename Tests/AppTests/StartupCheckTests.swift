import App
import AppTestSupport
import Crypto
import Foundation
import JSON
import ObjectStore
import ObjectStoreTestSupport
import SigV4
import TestSupport
import Testing

/// `s3.startupCheck` against RGW (issue 19, point 3), the application started in process as the binary
/// starts it: a missing bucket or a wrong secret is an error line at start naming the cause, `/readyz`
/// fails with the same text until the bucket answers, the gauge shows the outcome; `fail` refuses to
/// start (the binary exits 1, its line before any `listening`: BinaryTests.startupCheckExits); `off`
/// sends storage nothing.
@Suite("The start-up check of the bucket (RGW)")
struct StartupCheckTests {
    static let wrongSecret = "not-the-secret-0000000000000000000000000"

    /// A bucket name no test has made.
    static func missingBucket() -> String { "no-such-bucket-" + UUID().uuidString.prefix(8).lowercased() }

    /// The parsed lines of `server`'s log whose `msg` is `message`.
    static func entries(_ server: InProcessApp, _ message: String) throws -> [JSONValue] {
        try server.log.entries(message)
    }

    /// A GET on `path`, answered.
    static func get(_ server: some HTTPTarget, _ path: String) async throws -> WireResponse {
        try await server.exchange("GET", path)
    }

    /// The gauge's line for `outcome` in `/metrics`.
    static func gauge(_ server: some HTTPTarget, _ outcome: String) async throws -> String? {
        let text = try await get(server, "/metrics").text
        return text.split(separator: "\n").first {
            $0.hasPrefix("presignd_storage_bucket_check{outcome=\"\(outcome)\"}")
        }
        .map(String.init)
    }

    /// `/readyz`'s `storage` text and status.
    static func readyStorage(_ server: some HTTPTarget) async throws -> (status: Int, storage: String?) {
        let r = try await get(server, "/readyz")
        return (r.status, try JSONValue(parsing: r.body)["checks"]?["storage"]?.stringValue)
    }

    @Test("warn (the default), a missing bucket: an error line before listening, /readyz and the gauge until it exists")
    func missingBucketWarns() async throws {
        let s3 = try TestEnvironment.s3()
        let bucket = Self.missingBucket()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: ["PRESIGN_S3_BUCKET": bucket])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let cause = "NoSuchBucket (HTTP 404): the bucket s3.bucket does not exist"
        let failed = try Self.entries(server, "storage bucket check failed")
        #expect(failed.count == 1, "\(server.log.text)")
        let line = try #require(failed.first)
        #expect(line["level"]?.stringValue == "error")
        #expect(line["outcome"]?.stringValue == "no_such_bucket")
        #expect(line["cause"]?.stringValue == cause)
        #expect(line["bucket"]?.stringValue == bucket)
        #expect(line["endpointHost"]?.stringValue == "127.0.0.1")
        #expect(line["startupCheck"]?.stringValue == "warn")
        // Written while the application was built, before any request (before the binary's `listening`
        // line: BinaryTests.startupCheckExits).

        // /readyz fails with the same text, and the gauge says so.
        let before = try await Self.readyStorage(server)
        #expect(before.status == 503)
        #expect(before.storage == cause)
        #expect(
            try await Self.gauge(server, "no_such_bucket")
                == "presignd_storage_bucket_check{outcome=\"no_such_bucket\"} 1")
        #expect(try await Self.gauge(server, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 0")

        // The bucket comes: the next probe is ready, and the gauge follows it.
        let rgw = try s3.client(bucket: bucket)
        try rgw.createBucket()
        defer { try? rgw.deleteBucket() }
        let after = try await Self.readyStorage(server)
        #expect(after.status == 200, "\(after)")
        #expect(after.storage == "ok")
        #expect(try await Self.gauge(server, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 1")
        #expect(
            try await Self.gauge(server, "no_such_bucket")
                == "presignd_storage_bucket_check{outcome=\"no_such_bucket\"} 0")
    }

    @Test("warn, a wrong secret: the error line names SignatureDoesNotMatch and what to check")
    func wrongSecretWarns() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, extra: ["PRESIGN_S3_SECRET_ACCESS_KEY": Self.wrongSecret])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let line = try #require(try Self.entries(server, "storage bucket check failed").first, "\(server.log.text)")
        #expect(line["outcome"]?.stringValue == "credentials_refused")
        let cause = "SignatureDoesNotMatch (HTTP 403): s3.secretAccessKey is not the secret of s3.accessKeyId"
        #expect(line["cause"]?.stringValue == cause)
        #expect(!server.log.text.contains(Self.wrongSecret), "the secret never reaches the log")
        #expect(try await Self.readyStorage(server).storage == cause)
        #expect(
            try await Self.gauge(server, "credentials_refused")
                == "presignd_storage_bucket_check{outcome=\"credentials_refused\"} 1")
    }

    @Test("the right bucket and keys: one info line, the gauge at ok, no error")
    func fineBucket() async throws {
        let s3 = try TestEnvironment.s3()
        let (env, _) = TestEnvironment.serverEnvironment(s3: s3)
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let checked = try Self.entries(server, "storage bucket checked")
        #expect(checked.count == 1)
        #expect(checked.first?["outcome"]?.stringValue == "ok")
        #expect(checked.first?["level"]?.stringValue == "info")
        #expect(try Self.entries(server, "storage bucket check failed").isEmpty)
        #expect(try await Self.gauge(server, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 1")
    }

    @Test("fail: a missing bucket or a wrong secret refuses the start naming the cause; an unreachable store serves")
    func failRefuses() async throws {
        let s3 = try TestEnvironment.s3()
        for (extra, cause) in [
            (["PRESIGN_S3_BUCKET": Self.missingBucket()], "NoSuchBucket (HTTP 404)"),
            (["PRESIGN_S3_SECRET_ACCESS_KEY": Self.wrongSecret], "SignatureDoesNotMatch (HTTP 403)"),
        ] {
            var (env, _) = TestEnvironment.serverEnvironment(s3: s3, extra: extra)
            env["PRESIGN_S3_STARTUP_CHECK"] = "fail"
            let start = Result { try InProcessApp(environment: env) }
            guard case .failure(let failure) = start, let error = failure as? AppError else {
                Issue.record("\(cause): the start was not refused")
                continue
            }
            #expect(error.exitCode == 1)
            #expect(
                error.description.contains("the bucket check failed (s3.startupCheck is fail): \(cause)"), "\(error)")
        }
        // Storage that does not answer yet may come up later: logged, and the server serves.
        let closedPort = try ClosedPort()
        defer { withExtendedLifetime(closedPort) {} }
        let closed = closedPort.port
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_S3_STARTUP_CHECK": "fail", "PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(closed)",
                "PRESIGN_S3_MAX_RETRIES": "0",
            ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let line = try #require(try Self.entries(server, "storage bucket check failed").first, "\(server.log.text)")
        #expect(line["outcome"]?.stringValue == "unreachable")
        #expect(line["cause"]?.stringValue?.contains("Connection refused") == true, "\(line)")
        #expect(try await Self.get(server, "/healthz").status == 200)
    }

    @Test("off: storage hears nothing at start (counted at a proxy); warn through the same proxy asks it")
    func offSendsNothing() async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        var (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, extra: ["PRESIGN_S3_ENDPOINT": "http://127.0.0.1:\(proxy.port)"])
        env["PRESIGN_S3_STARTUP_CHECK"] = "off"
        let off = try await InProcessApp(environment: env)
        // The check would run while the application is built: by now it would have been counted.
        #expect(proxy.requestCount == 0)
        #expect(!off.log.text.contains("storage bucket check"))
        #expect(try await Self.gauge(off, "ok") == "presignd_storage_bucket_check{outcome=\"ok\"} 0")
        off.stop()
        #expect(proxy.requestCount == 0)

        env["PRESIGN_S3_STARTUP_CHECK"] = "warn"
        let warn = try await InProcessApp(environment: env)
        defer { warn.stop() }
        #expect(proxy.requestCount == 1, "one signed HEAD of the bucket, answered 200")
        #expect(try Self.entries(warn, "storage bucket checked").first?["outcome"]?.stringValue == "ok")
    }
}
