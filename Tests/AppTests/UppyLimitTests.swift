import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

/// The Uppy routes' rate limits (issue 19, points 12 and 13), the application in process against RGW
/// with the limits on: the Companion budget takes a 100-file batch sent at once, and an abort is never
/// refused for rate.
@Suite("Uppy routes: rate limits (RGW)", .serialized, .onDispatchThreads)
struct UppyLimitTests {
    static func start(_ extra: [String: String] = [:]) async throws -> (InProcessApp, TestEnvironment.S3) {
        var more = ["PRESIGN_LIMITS_ENABLED": "true"]
        for (k, v) in extra { more[k] = v }
        // The clock stopped at the start: the budget must hold the batch without a refill.
        return try await UppyFlowTests.start(.sqlite, extra: more, nowMillis: InProcessApp.frozenClock())
    }

    @Test("the default limits take 100 files' create, params, part URL and completion from one user at once")
    func hundredFiles() async throws {
        let (server, s3) = try await Self.start()
        defer { server.stop() }
        let jpeg = try ImageFixture.bytes("jpeg-baseline-64x48.jpg")
        // Uppy sends the batch's creates and params first, then the parts, then the completions.
        var uploads: [(key: String, uploadId: String)] = []
        for i in 0..<100 {
            uploads.append(try await UppyFlowTests.create(server, filename: "photo \(i).jpg"))
            let params = try await UppyFlowTests.call(
                server, "GET", "/s3/params?filename=small\(i).jpg&type=image%2Fjpeg")
            #expect(params.status == 200, "file \(i): \(params.text)")
        }
        var etags: [String] = []
        for (i, u) in uploads.enumerated() {
            let base = "/s3/multipart/\(UppyFlowTests.q(u.uploadId))"
            let part = try await UppyFlowTests.call(server, "GET", "\(base)/1?key=\(UppyFlowTests.q(u.key))")
            #expect(part.status == 200, "file \(i): \(part.text)")
            let url = try #require(try UppyFlowTests.json(part)["url"]?.stringValue)
            let (status, etag) = try await UppyFlowTests.put(s3, url: url, bytes: jpeg)
            #expect(status == 200)
            etags.append(try #require(etag))
        }
        for (i, u) in uploads.enumerated() {
            let base = "/s3/multipart/\(UppyFlowTests.q(u.uploadId))"
            let body = #"{"parts":[{"PartNumber":1,"ETag":\#(etags[i].debugDescription)}]}"#
            let done = try await UppyFlowTests.call(
                server, "POST", "\(base)/complete?key=\(UppyFlowTests.q(u.key))", body: body)
            #expect(done.status == 200, "file \(i): \(done.text)")
        }
        #expect(try await server.metric("presignd_rate_limited_companion_total") == 0)
    }

    @Test("an abort is never rate-limited: with the Companion bucket empty it still aborts, and counts nothing")
    func abortNotLimited() async throws {
        // One request a minute everywhere: a bucket of one.
        let (server, _) = try await Self.start([
            "PRESIGN_LIMITS_UPPY_PER_USER_PER_MINUTE": "1", "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE": "1",
            "PRESIGN_LIMITS_CONFIRM_PER_USER_PER_MINUTE": "1",
        ])
        defer { server.stop() }
        let u = try await UppyFlowTests.create(server)
        let base = "/s3/multipart/\(UppyFlowTests.q(u.uploadId))?key=\(UppyFlowTests.q(u.key))"
        let limited = try await UppyFlowTests.call(server, "GET", base)
        #expect(limited.status == 429, "the bucket is empty: \(limited.text)")
        #expect(try UppyFlowTests.json(limited)["message"]?.stringValue?.isEmpty == false)
        let abort = try await UppyFlowTests.call(server, "DELETE", base)
        #expect(abort.status == 200, "\(abort.text)")
        #expect(abort.text == "{}")
        // Again: the upload is gone (200 `{}`, as Companion answers), still not a 429.
        let again = try await UppyFlowTests.call(server, "DELETE", base)
        #expect(again.status == 200, "\(again.text)")
        #expect(try await server.metric("presignd_rate_limited_companion_total") == 1)
        #expect(try await server.metric("presignd_rate_limited_confirm_total") == 0)
    }
}
