import Foundation
import Testing

@testable import PresignClient

@Suite("PresignClient: pure rules (back-off, failure actions, part plans, the exact URL)")
struct PureLogicTests {
    @Test("back-off doubles from the base, is capped, and its jitter stays in the upper half")
    func backOff() {
        let p = RetryPolicy(maxAttempts: 8, baseDelay: 1, maxDelay: 10)
        #expect(p.delay(afterAttempt: 1, unit: 0) == 0.5)
        #expect(p.delay(afterAttempt: 1, unit: 1) == 1)
        #expect(p.delay(afterAttempt: 2, unit: 0) == 1)
        #expect(p.delay(afterAttempt: 3, unit: 0.5) == 3)
        #expect(p.delay(afterAttempt: 20, unit: 1) == 10)
        #expect(p.delay(afterAttempt: 20, unit: 0) == 5)
        // Two parts failing together wait different times.
        #expect(p.delay(afterAttempt: 2, unit: 0.1) != p.delay(afterAttempt: 2, unit: 0.9))
    }

    @Test("failures map to retry, re-sign, restart or fail")
    func actions() {
        let c = FailureClassifier()
        #expect(c.action(for: .storage(status: 500, code: "InternalError", message: nil)) == .retry)
        #expect(c.action(for: .storage(status: 503, code: "SlowDown", message: nil)) == .retry)
        #expect(c.action(for: .storage(status: 400, code: "RequestTimeout", message: nil)) == .retry)
        #expect(c.action(for: .network(code: -1004, description: "refused")) == .retry)
        #expect(c.action(for: .storage(status: 403, code: "AccessDenied", message: "Request has expired")) == .resign)
        #expect(c.action(for: .storage(status: 404, code: "NoSuchUpload", message: nil)) == .restart)
        #expect(c.action(for: .server(status: 404, code: "NO_SUCH_UPLOAD", message: nil)) == .restart)
        #expect(c.action(for: .server(status: 404, code: "INTENT_NOT_FOUND", message: nil)) == .fail)
        #expect(c.action(for: .server(status: 502, code: "STORAGE_ERROR", message: nil)) == .retry)
        #expect(c.action(for: .server(status: 429, code: "RATE_LIMITED", message: nil)) == .retry)
        #expect(c.action(for: .server(status: 400, code: nil, message: "bad part")) == .fail)
        #expect(c.action(for: .storage(status: 400, code: "EntityTooSmall", message: nil)) == .fail)
        #expect(c.action(for: .cancelled) == .fail)
    }

    @Test("a part plan covers the file exactly, at least 5 MiB a part and at most 10,000 parts")
    func partPlan() {
        let mib = 1_048_576
        let p = PartPlan(fileSize: Int64(20 * mib + 3), partSize: 5 * mib)
        #expect(p.parts.count == 5)
        #expect(p.parts.map(\.number) == [1, 2, 3, 4, 5])
        #expect(p.parts.last!.length == 3)
        #expect(p.parts.reduce(0) { $0 + Int64($1.length) } == p.fileSize)
        for (a, b) in zip(p.parts, p.parts.dropFirst()) { #expect(a.offset + Int64(a.length) == b.offset) }
        #expect(PartPlan(fileSize: 100, partSize: 1).partSize == 5 * mib)
        let huge = PartPlan(fileSize: 100_000 * Int64(mib), partSize: 5 * mib)
        #expect(huge.parts.count <= 10_000)
        #expect(huge.parts.reduce(0) { $0 + Int64($1.length) } == huge.fileSize)
        let empty = PartPlan(fileSize: 0, partSize: 5 * mib)
        #expect(empty.parts == [PartPlan.Part(number: 1, offset: 0, length: 0)])
    }

    @Test("the storage request is URL(string:) of the exact string: %2F stays %2F, nothing is re-encoded")
    func exactURL() throws {
        let s =
            "http://127.0.0.1:9000/uploads/delete/profile/42/a_1.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260101T000000Z&X-Amz-SignedHeaders=host&X-Amz-Credential=AKID%2F20260101%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=600&X-Amz-Signature=abc"
        let r = try PresignClient.storageRequest(
            method: "PUT", url: s, headers: ["Content-Type": "image/jpeg"], contentLength: 3)
        #expect(r.url!.absoluteString == s)
        #expect(r.url!.absoluteString.contains("%2F20260101%2F"))
        #expect(!r.url!.absoluteString.contains("%252F"))
        #expect(r.httpMethod == "PUT")
        #expect(r.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
        #expect(r.value(forHTTPHeaderField: "Content-Length") == "3")
        // What the seed's app did: URLComponents.queryItems decode %2F and percentEncodedQuery re-encodes
        // differently; a string URL(string:) would change is refused rather than sent.
        #expect(throws: PresignClientError.self) { try ExactURL.make("http://h/a b?x=%2F") }
        #expect(throws: PresignClientError.self) { try ExactURL.make("not a url at all \u{0}") }
    }

    @Test("storage and server error bodies become typed errors with their codes")
    func errorBodies() {
        let s = StorageErrorBody.error(
            status: 403,
            body: Data(
                "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error>".utf8))
        #expect(s == .storage(status: 403, code: "SignatureDoesNotMatch", message: "no"))
        #expect(s.storageCode == "SignatureDoesNotMatch")
        #expect(s.status == 403)
        let j = ServerErrorBody.error(
            status: 422,
            body: Data(#"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"type":"x"}}"#.utf8))
        #expect(j == .server(status: 422, code: "4220", message: "UNPROCESSABLE_CONTENT", fieldErrors: ["type": "x"]))
        #expect(j.serverCode == "4220")
        // Every field error is kept and shown (issue 19: the CLI printed only UNPROCESSABLE_CONTENT).
        let two = ServerErrorBody.error(
            status: 422,
            body: Data(
                #"{"code":"4220","message":"UNPROCESSABLE_CONTENT","fieldErrors":{"size":"must be at most 20971520","ext":"must be one of jpg, jpeg, png"}}"#
                    .utf8))
        #expect(two.fieldErrors == ["size": "must be at most 20971520", "ext": "must be one of jpg, jpeg, png"])
        #expect(
            two.description
                == "server refused (HTTP 422, 4220): UNPROCESSABLE_CONTENT (ext: must be one of jpg, jpeg, png; size: must be at most 20971520)"
        )
        #expect(
            PresignClientError.server(status: 404, code: "X", message: "m").description
                == "server refused (HTTP 404, X): m")
        let companion = ServerErrorBody.error(status: 400, body: Data(#"{"error":"bad part number"}"#.utf8))
        #expect(companion == .server(status: 400, code: nil, message: "bad part number"))
    }
}
