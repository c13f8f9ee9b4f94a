import AppTestSupport
import Foundation
import JSON
import Records
import RecordsTestSupport
import Testing

@testable import App
@testable import ObjectStore

/// The texts of `/readyz` (pure) and the warning logged when readiness changes (in process).
@Suite("Readiness: texts and change log")
struct ReadinessTests {
    static let now: Int64 = 1_800_000_000_000

    static func probe(_ status: Int, code: String? = nil, date: Int64? = now / 1000) -> S3Client.BucketProbe {
        S3Client.BucketProbe(status: status, serverEpochSeconds: date, errorCode: code)
    }

    @Test(
        "storage names S3's code (and what to check) or the transport failure; clock stays present",
        arguments: [
            (
                Result<S3Client.BucketProbe, ObjectStoreError>.success(probe(200)), ["ok", "ok"], true
            ),
            (
                .success(probe(403, code: "SignatureDoesNotMatch")),
                ["SignatureDoesNotMatch (HTTP 403): s3.secretAccessKey is not the secret of s3.accessKeyId", "ok"],
                false
            ),
            (
                .success(probe(403, code: "InvalidAccessKeyId")),
                ["InvalidAccessKeyId (HTTP 403): storage does not know s3.accessKeyId", "ok"], false
            ),
            (
                .success(probe(404, code: "NoSuchBucket")),
                ["NoSuchBucket (HTTP 404): the bucket s3.bucket does not exist", "ok"], false
            ),
            (.success(probe(403, code: "SomethingNew")), ["SomethingNew (HTTP 403)", "ok"], false),
            (.success(probe(403)), ["HTTP 403", "ok"], false),
            (.success(probe(200, date: nil)), ["ok", "unknown (storage sent no Date header)"], true),
            (
                .failure(.connection("connect to 127.0.0.1:9: Connection refused")),
                ["connection failed: connect to 127.0.0.1:9: Connection refused", "unknown"], false
            ),
            (
                .failure(.connection("cannot resolve s3.invalid: Name or service not known")),
                ["connection failed: cannot resolve s3.invalid: Name or service not known", "unknown"], false
            ),
            (
                .failure(.timeout("connect to 10.0.0.1:9000 timed out")),
                ["timeout: connect to 10.0.0.1:9000 timed out", "unknown"], false
            ),
            (
                .failure(.tls("certificate of s3.local rejected: self-signed certificate")),
                ["TLS failed: certificate of s3.local rejected: self-signed certificate", "unknown"], false
            ),
        ] as [(Result<S3Client.BucketProbe, ObjectStoreError>, [String], Bool)])
    func texts(probe: Result<S3Client.BucketProbe, ObjectStoreError>, expected: [String], ready: Bool) {
        let checks = StorageReadiness.checks(probe: probe, nowMillis: Self.now, maxSkewSeconds: 300)
        #expect(checks.map(\.name) == ["storage", "clock"])
        #expect(checks.map(\.text) == expected)
        #expect(checks.allSatisfy(\.passes) == ready)
    }

    @Test("a skewed clock fails the clock check even when storage refuses for that reason")
    func skew() {
        let checks = StorageReadiness.checks(
            probe: .success(Self.probe(403, code: "RequestTimeTooSkewed", date: Self.now / 1000 - 7200)),
            nowMillis: Self.now, maxSkewSeconds: 300)
        #expect(checks[0].text == "RequestTimeTooSkewed (HTTP 403): this server's clock is too far from storage's")
        #expect(checks[1].text == "this server's clock is 7200 s ahead of the storage server's (allowed: 300 s)")
        #expect(!checks[1].passes)
    }

    /// Storage-side checks a test sets between probes.
    final class Scripted: @unchecked Sendable {
        private let lock = NSLock()
        private var checks: [ReadinessCheck] = []
        func set(_ c: [ReadinessCheck]) { lock.withLock { checks = c } }
        func get() -> [ReadinessCheck] { lock.withLock { checks } }
    }

    @Test("one warning per change of readiness (not per probe), with the reasons; the body keeps its shape")
    func changeIsLoggedOnce() throws {
        let log = LogFile()
        let scripted = Scripted()
        let ops = OpsService(
            store: InMemoryRecordStore(), metrics: { "" }, storageCheck: { scripted.get() }, log: log.sink)
        let fine: [ReadinessCheck] = [.ok("storage"), .ok("clock")]
        let denied: [ReadinessCheck] = [.failed("storage", "SignatureDoesNotMatch (HTTP 403)"), .ok("clock")]
        let down: [ReadinessCheck] = [.failed("storage", "connection failed: refused"), .unknown("clock")]
        var statuses: [Int] = []
        for step in [fine, fine, denied, denied, down, fine, fine, down] {
            scripted.set(step)
            let r = ops.readiness()
            statuses.append(r.status)
            let body = try JSONValue(parsing: r.body)
            #expect(body.objectValue?.keys == ["status", "checks"])
            #expect(body["checks"]?.objectValue?.keys == ["database", "storage", "clock"])
        }
        #expect(statuses == [200, 200, 503, 503, 503, 200, 200, 503])
        let changes = try log.entries("readiness changed")
        #expect(changes.map { $0["status"]?.stringValue } == ["not ready", "ready", "not ready"])
        #expect(changes.allSatisfy { $0["level"]?.stringValue == "warn" && $0["time"]?.stringValue != nil })
        #expect(changes[0]["checks"]?["storage"]?.stringValue == "SignatureDoesNotMatch (HTTP 403)")
        #expect(changes[0]["checks"]?["database"]?.stringValue == "ok")
        #expect(changes[1]["checks"]?["storage"]?.stringValue == "ok")
        #expect(changes[2]["checks"]?["clock"]?.stringValue == "unknown")
        #expect(log.lines.count == 3, "nothing else was logged: \(log.lines)")
    }
}
