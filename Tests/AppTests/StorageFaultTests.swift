import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// Storage failures on the server's own calls: a fault proxy sits between presignd's internal endpoint
/// and the real RGW (clients upload straight to RGW through the public endpoint), and injects S3
/// errors, resets, responses cut off halfway and stalls. Each maps to the status and code
/// docs/object-store.md gives, `/readyz` says storage is unavailable, and the server recovers without
/// a restart once the faults stop.
@Suite("Storage faults on confirmation (fault proxy, RGW)", .serialized)
struct StorageFaultTests {
    /// A server whose own S3 calls go through `proxy` (one retry, a one-second deadline per attempt).
    static func start(_ s3: TestEnvironment.S3, proxy: FaultProxy) async throws -> InProcessApp {
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3, proxy: proxy,
            extra: [
                "PRESIGN_S3_REQUEST_TIMEOUT_MS": "1000", "PRESIGN_S3_MAX_RETRIES": "1",
                // No bucket check at start: its HEAD would leave a pooled connection, and a reset on a pooled
                // connection is sent once more on a fresh one (a stale keep-alive looks the same), which
                // would make the attempts counted below depend on the pool's idle timeout.
                "PRESIGN_S3_STARTUP_CHECK": "off",
            ])
        return try await InProcessApp(environment: env)
    }

    /// Issues a client-B URL and uploads to RGW directly; returns the image key.
    static func uploaded(_ server: some HTTPTarget, _ s3: TestEnvironment.S3) async throws -> String {
        let uuid = UUID().uuidString
        let r = try await ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200, "\(r.text)")
        let url = try #require(try JSONValue(parsing: r.body)["signedUrl"]?.stringValue)
        let target = String(url[url.range(of: s3.endpoint)!.upperBound...])
        let put = try await ClientPFlowTests.put(
            s3, target: target, contentType: "image/jpeg",
            body: TestImages.jpeg(width: 640, height: 480, tail: Array(uuid.utf8)))
        #expect(put == 200)
        return uuid
    }

    /// POST /images as user 9 (the issuing user); status and code.
    static func confirm(_ server: some HTTPTarget, _ imageKey: String) async throws -> (Int, String?) {
        let r = try await server.exchange(
            "POST", "/images", headers: "X-User-Id: 9\r\n", body: #"{"imageKey":"\#(imageKey)"}"#)
        return (r.status, try? JSONValue(parsing: r.body)["code"]?.stringValue)
    }

    /// `/readyz`'s status and its storage check.
    static func readiness(_ server: some HTTPTarget) async throws -> (Int, String?) {
        let r = try await server.exchange("GET", "/readyz")
        return (r.status, try? JSONValue(parsing: r.body)["checks"]?["storage"]?.stringValue)
    }

    @Test(
        "each fault maps to its documented answer, with the retry the policy allows",
        arguments: [
            (FaultProxy.Fault.status(500, code: "InternalError"), 502, "STORAGE_ERROR", 2),
            (FaultProxy.Fault.status(503, code: "SlowDown"), 502, "STORAGE_ERROR", 2),
            (FaultProxy.Fault.reset, 503, "STORAGE_UNAVAILABLE", 2),
            (FaultProxy.Fault.cutShort, 503, "STORAGE_UNAVAILABLE", 2),
            (FaultProxy.Fault.stall(milliseconds: 10_000), 504, "STORAGE_TIMEOUT", 2),
        ])
    func faultMapping(fault: FaultProxy.Fault, status: Int, code: String, attempts: Int) async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let server = try await Self.start(s3, proxy: proxy)
        defer { server.stop() }
        let key = try await Self.uploaded(server, s3)

        // The content check's ranged GET is the call that looks at the object (it stands in for a HEAD);
        // readiness HEADs the bucket.
        proxy.setRules([.init(.method("GET"), fault), .init(.method("HEAD"), fault)])
        let before = proxy.faultCount
        let (got, gotCode) = try await Self.confirm(server, key)
        #expect(got == status, "\(fault): \(got) \(gotCode ?? "-")")
        #expect(gotCode == code)
        #expect(proxy.faultCount - before == attempts, "one attempt and one retry reached the proxy")

        // Readiness sees the same storage, and the server recovers once it answers again.
        let (ready, storage) = try await Self.readiness(server)
        #expect(ready == 503)
        #expect(storage != nil && storage != "ok")
        proxy.setRules([])
        let recovered = try await Self.confirm(server, key)
        #expect(recovered.0 == 201, "\(recovered.1 ?? "-")")
        #expect(try await Self.readiness(server).0 == 200)
    }

    @Test("a share of failing requests: every confirmation ends in 201 or a documented 5xx, none lost")
    func shareOfFaults() async throws {
        let s3 = try TestEnvironment.s3()
        let proxy = try FaultProxy(inFrontOf: s3)
        defer { proxy.close() }
        let server = try await Self.start(s3, proxy: proxy)
        defer { server.stop() }
        var keys: [String] = []
        for _ in 0..<12 { keys.append(try await Self.uploaded(server, s3)) }
        proxy.setRules([.init(.share(percent: 40, seed: 7), .status(503, code: "SlowDown"))])
        var outcomes: [Int: Int] = [:]
        var unconfirmed: [String] = []
        for key in keys {
            let (status, code) = try await Self.confirm(server, key)
            outcomes[status, default: 0] += 1
            if status != 201 {
                #expect(status == 502 && code == "STORAGE_ERROR", "\(status) \(code ?? "-")")
                unconfirmed.append(key)
            }
        }
        #expect(proxy.faultCount > 0, "the share selector injected faults")
        #expect(outcomes[201, default: 0] > 0, "some confirmations got through on a retry or first try")
        // Once storage is healthy, a retried confirmation of each refused key succeeds: nothing was lost.
        proxy.setRules([])
        for key in unconfirmed { #expect(try await Self.confirm(server, key).0 == 201) }
        for key in keys {
            #expect(try await Self.confirm(server, key).0 == 200, "the record is there (idempotent repeat)")
        }
    }
}
