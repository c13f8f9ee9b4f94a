import Config
import Crypto
import Explain
import HTTP1
import HTTPServer
import JSON
import SigV4
import System
import Testing
import UploadsTestSupport

@testable import App

/// The explain route in process: its body (headers as lines, AWS S3's error XML with entities, the
/// storage date), its refusals, and its answer's shape.
@Suite("ExplainService in process")
struct ExplainServiceTests {
    static let adminKey = "in-process-admin-key-0123456789abcdef"
    static let secret = "in-process-secret-key-000000000000000001"
    /// 2026-12-01T12:00:00Z.
    static let now: Int64 = 1_796_126_400

    static let signer = try! Presigner(
        credentials: Credentials(accessKeyId: "AKIDINPROCESS", secretAccessKey: Secret(secret)), region: "us-east-1",
        endpoint: Endpoint(parsing: "https://s3.example.com"), addressing: .path)

    static func service() -> ExplainService {
        var config = PresigndConfig.defaults
        config.auth.apiKeys = [APIKeyConfig(id: "ops", sha256: SHA256.hash(adminKey).hex, scopes: ["admin"])]
        config.explain.enabled = true
        return ExplainService(
            config: config, signer: { signer }, storage: InMemoryObjectStorage(),
            gate: Gate(callers: DevelopmentCallerResolver(header: "X-User-Id", defaultUserId: "1")),
            env: AppEnvironment(nowMillis: { now * 1000 + 5000 }, newUUID: { "u" }))
    }

    static func post(_ body: String, key: String? = adminKey) -> Response {
        var head = "POST /admin/explain HTTP/1.1\r\nHost: presignd\r\nContent-Type: application/json\r\n"
        if let key { head += "X-Api-Key: \(key)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        guard case .complete(let parsed, _) = RequestParser.parseHead(Array(head.utf8)) else {
            Issue.record("test request does not parse")
            return Response(status: 0)
        }
        let route = service().routes()[0]
        let request = Request(
            head: parsed, body: Array(body.utf8), pathParameters: [], requestId: "t", peer: "127.0.0.1:1")
        switch route.handler(request) {
        case .respond(let response): return response
        case .blocking(let work): return work()
        case .deferred, .blockingDeferred: preconditionFailure("these routes answer inline or on a worker")
        }
    }

    @Test("headers as lines and AWS S3's error XML (entities decoded): storage's canonical request compared")
    func awsErrorXML() throws {
        let key = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
        let url = try Self.signer.presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: key, expires: 900,
                signedHeaders: [("Content-Type", "image/jpeg")]), now: Self.now
        ).url
        // What AWS S3 answers a PNG upload of that URL (the canonical request it computed, XML-escaped).
        let theirs = """
            PUT
            /uploads/\(key)
            X-Amz-Algorithm=AWS4-HMAC-SHA256&amp;X-Amz-Credential=AKIDINPROCESS%2F20261201%2Fus-east-1%2Fs3%2Faws4_request&amp;X-Amz-Date=20261201T120000Z&amp;X-Amz-Expires=900&amp;X-Amz-SignedHeaders=content-type%3Bhost
            content-type:image/png
            host:s3.example.com

            content-type;host
            UNSIGNED-PAYLOAD
            """
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message><AWSAccessKeyId>AKIDINPROCESS</AWSAccessKeyId><CanonicalRequest>\(theirs)</CanonicalRequest></Error>"
        let body: JSONValue = [
            "url": .string(url), "method": "PUT", "headers": ["Content-Type: image/png", "Content-Length: 5"],
            "errorXml": .string(xml), "storageDate": "Tue, 01 Dec 2026 12:00:06 GMT",
        ]
        let response = Self.post(body.jsonText)
        #expect(response.status == 200)
        let json = try JSONValue(parsing: response.body)
        let findings = json["findings"]?.arrayValue ?? []
        let storage = findings.first { $0["code"]?.stringValue == "STORAGE_CANONICAL_REQUEST" }
        #expect(storage?["field"]?.stringValue == "canonicalRequest.header.content-type")
        #expect(storage?["expected"]?.stringValue == "image/jpeg")
        #expect(storage?["got"]?.stringValue == "image/png")
        #expect(findings.contains { $0["code"]?.stringValue == "SIGNED_HEADER_CHANGED" })
        #expect(!findings.contains { $0["code"]?.stringValue == "STORAGE_CLOCK" })
        #expect(json["storageCode"]?.stringValue == "SignatureDoesNotMatch")
        #expect(json["differences"]?.boolValue == true)
        #expect(json["expected"]?["signedHeaders"]?["content-type"]?.stringValue == "image/jpeg")
        #expect(!String(decoding: response.body, as: UTF8.self).contains(Self.secret))
        #expect(response.headers.contains { $0.name == "Cache-Control" && $0.value == "no-store" })
    }

    @Test("refusals: no key 401, malformed members 422, not JSON 400")
    func refusals() throws {
        #expect(Self.post(#"{"url":"https://s3.example.com/uploads/a"}"#, key: nil).status == 401)
        let bad = Self.post(#"{"url":"","headers":"Content-Type","method":"P T","storageDate":"yesterday","x":1}"#)
        #expect(bad.status == 422)
        let errors = try JSONValue(parsing: bad.body)["fieldErrors"]
        for field in ["url", "headers", "method", "storageDate", "x"] {
            #expect(errors?[field] != nil, "\(field): \(String(decoding: bad.body, as: UTF8.self))")
        }
        #expect(Self.post("{").status == 400)
    }

    @Test("ServerTime and header lines are read as S3 writes them")
    func parsing() {
        #expect(ISO8601Timestamp.epochSeconds("2026-12-01T12:00:00Z") == Self.now)
        #expect(ISO8601Timestamp.epochSeconds("2026-12-01T12:00:00.123Z") == Self.now)
        #expect(ISO8601Timestamp.epochSeconds("yesterday") == nil)
        #expect(ExplainService.header(line: " Content-Type :  image/png ")! == ("Content-Type", "image/png"))
        #expect(ExplainService.header(line: "no colon") == nil)
        #expect(ExplainService.header(line: ": value") == nil)
        let report = ExplainService.storageReport(
            xml: Array("<Error><Code>AccessDenied</Code><ServerTime>2026-12-01T12:00:00Z</ServerTime></Error>".utf8))
        #expect(report == StorageErrorReport(code: "AccessDenied", storageTime: Self.now))
    }
}
