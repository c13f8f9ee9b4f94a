import Crypto
import Foundation
import SigV4
import TestSupport
import Testing

@testable import ObjectStore

/// The S3 client's retries and error mapping, against scripted local servers.
@Suite struct S3ClientTests {
    /// A client for `server` that records its retry waits; `random` returns the cap.
    static func client(_ server: FakeServer, maxRetries: Int = 2, requestTimeoutMs: Int = 2000, sleeps: SleepRecorder)
        throws -> S3Client
    {
        let endpoint = try Endpoint(parsing: "http://127.0.0.1:\(server.port)")
        let signer = try Presigner(
            credentials: Credentials(
                accessKeyId: "AKIDEXAMPLE", secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")),
            region: "us-east-1", endpoint: endpoint, addressing: .path)
        let options = ObjectStoreOptions(
            endpoint: endpoint, bucket: "uploads", requestTimeoutMs: requestTimeoutMs, connectTimeoutMs: 1000,
            maxRetries: maxRetries)
        return S3Client(options: options, signer: signer, now: { 1_700_000_000 }, random: { $0 }, sleep: sleeps.sleep)
    }

    static let slowDown = """
        HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: 60\r\n\r\n\
        <Error><Code>SlowDown</Code><Message>Reduce</Message></Error>
        """

    @Test func slowDownTwiceThenSuccessTakesExactlyThreeAttempts() throws {
        let server = try FakeServer { index, _ in
            index < 2
                ? .respond(Self.slowDown)
                : .respond(
                    "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nETag: \"abc\"\r\nContent-Type: image/jpeg\r\n\r\nxyz")
        }
        defer { server.stop() }
        let sleeps = SleepRecorder()
        let result = try Self.client(server, sleeps: sleeps).get(key: "a/b.jpg")
        #expect(result.bytes == Array("xyz".utf8))
        #expect(result.info == ObjectInfo(size: 3, contentType: "image/jpeg", etag: "abc"))
        #expect(server.requests.count == 3)
        // Full jitter with a source that returns its upper bound: the caps, 50 ms then 100 ms.
        #expect(sleeps.recorded == [50, 100])
        // Each attempt is signed afresh and sent to the path-style URL.
        #expect(
            server.requests.allSatisfy {
                $0.hasPrefix("GET /uploads/a/b.jpg HTTP/1.1\r\n") && $0.contains("Authorization: AWS4-HMAC-SHA256 ")
            })
    }

    @Test func retriesAreBoundedByMaxRetries() throws {
        let server = try FakeServer { _, _ in .respond(Self.slowDown) }
        defer { server.stop() }
        let sleeps = SleepRecorder()
        #expect(throws: ObjectStoreError.status(503, code: "SlowDown")) {
            try Self.client(server, maxRetries: 3, sleeps: sleeps).get(key: "k")
        }
        #expect(server.requests.count == 4)
        #expect(sleeps.recorded == [50, 100, 200])
    }

    @Test func forbiddenIsNotRetried() throws {
        let server = try FakeServer { _, _ in
            .respond(
                "HTTP/1.1 403 Forbidden\r\nContent-Length: 45\r\n\r\n<Error><Code>AccessDenied</Code></Error>     ")
        }
        defer { server.stop() }
        let sleeps = SleepRecorder()
        #expect(throws: ObjectStoreError.status(403, code: "AccessDenied")) {
            try Self.client(server, sleeps: sleeps).delete(key: "k")
        }
        #expect(server.requests.count == 1)
        #expect(sleeps.recorded.isEmpty)
    }

    @Test func aServerThatNeverAnswersTimesOutAndRetriesAreBounded() throws {
        let server = try FakeServer { _, _ in .hang }
        defer { server.stop() }
        let sleeps = SleepRecorder()
        let client = try Self.client(server, maxRetries: 2, requestTimeoutMs: 250, sleeps: sleeps)
        let start = Date()
        do throws(ObjectStoreError) {
            _ = try client.head(key: "k")
            Issue.record("a hung server answered")
        } catch {
            guard case .timeout = error else {
                Issue.record("expected a timeout, got \(error)")
                return
            }
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(server.connections == 3)
        #expect(sleeps.recorded.count == 2)
        // Three attempts of 250 ms each (the waits are recorded, not slept): no deadline can end early.
        // No upper bound: a loaded machine only makes it slower, and the attempt count above is the proof.
        #expect(elapsed >= 0.74, "took \(elapsed) s")
    }

    @Test func headMapsNotFoundToNil() throws {
        let server = try FakeServer { _, _ in .respond("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n") }
        defer { server.stop() }
        #expect(try Self.client(server, sleeps: SleepRecorder()).head(key: "missing") == nil)
    }

    @Test func aCopyAnsweredWithAnEmbeddedErrorFails() throws {
        let body = "<?xml version=\"1.0\"?>\n<Error><Code>InternalError</Code><Message>x</Message></Error>"
        let server = try FakeServer { _, _ in
            .respond("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        defer { server.stop() }
        let sleeps = SleepRecorder()
        #expect(throws: ObjectStoreError.status(200, code: "InternalError")) {
            try Self.client(server, maxRetries: 1, sleeps: sleeps).copy(from: "a b", to: "c")
        }
        // InternalError inside a 200 is transient: retried once.
        #expect(server.requests.count == 2)
        let request = try #require(server.requests.first)
        #expect(request.hasPrefix("PUT /uploads/c HTTP/1.1\r\n"))
        #expect(request.contains("x-amz-copy-source: /uploads/a%20b\r\n"))
        #expect(request.contains("x-amz-metadata-directive: COPY\r\n"))
    }

    @Test func aConditionalCopyBuildsItsResultWithoutAHead() throws {
        let body = "<CopyObjectResult><ETag>&quot;new&quot;</ETag></CopyObjectResult>"
        let server = try FakeServer { _, _ in
            .respond("HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        defer { server.stop() }
        let source = ObjectInfo(size: 42, contentType: "image/png", etag: "old")
        let copied = try Self.client(server, sleeps: SleepRecorder()).copy(
            from: "t/x.png", to: "p/x.png", expecting: source)
        #expect(copied == ObjectInfo(size: 42, contentType: "image/png", etag: "new"))
        #expect(server.requests.count == 1)
        #expect(server.requests[0].contains("x-amz-copy-source-if-match: \"old\"\r\n"))
        #expect(server.requests[0].contains("x-amz-copy-if-match: \"old\"\r\n"))
    }

    @Test func signingErrorsAreReportedNotSent() throws {
        let server = try FakeServer { _, _ in .respond("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { server.stop() }
        let client = try Self.client(server, sleeps: SleepRecorder())
        do throws(ObjectStoreError) {
            _ = try client.head(key: "a/../b")
            Issue.record("a key with a dot segment was signed")
        } catch {
            guard case .signing = error else {
                Issue.record("expected a signing error, got \(error)")
                return
            }
        }
        #expect(server.requests.isEmpty)
    }
}
