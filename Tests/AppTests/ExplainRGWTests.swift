import AppTestSupport
import Commands
import Config
import Crypto
import Foundation
import JSON
import SigV4
import Synchronization
import TestSupport
import Testing

@testable import App

/// The explain route and `presignd explain` against faults reproduced on the real Ceph RGW: a URL
/// issued by the application (whose clock the test sets), broken the way a client breaks it, PUT to
/// RGW, and RGW's real error answer passed on with the URL and headers.
@Suite("Explain mode against RGW", .serialized)
struct ExplainRGWTests {
    /// The admin key and an ordinary key (their SHA-256 digests are configured).
    static let adminKey = "explain-admin-key-0123456789abcdef0123456789abcdef"
    static let plainKey = "explain-plain-key-0123456789abcdef0123456789abcdef"

    /// The environment of both the in-process application and the `presignd explain` runs.
    static func environment(_ s3: TestEnvironment.S3, enabled: Bool = true) -> [String: String] {
        var extra = [
            "PRESIGN_AUTH_API_KEYS":
                "ops:\(SHA256.hash(adminKey).hex):admin,backend:\(SHA256.hash(plainKey).hex)",
            "PRESIGN_SERVER_PORT": "0", "PRESIGN_SERVER_EVENT_LOOPS": "1", "PRESIGN_LOG_ACCESS_LOG": "false",
        ]
        if enabled { extra["PRESIGN_EXPLAIN_ENABLED"] = "true" }
        return TestEnvironment.serverEnvironment(s3: s3, extra: extra).env
    }

    /// The application in this process, its clock `offset` seconds from the real one.
    final class InProcess: Sendable {
        let app: InProcessApp
        let clock = Clock()

        init(_ env: [String: String]) async throws {
            let clock = self.clock
            app = try await InProcessApp(
                environment: env,
                nowMillis: { Int64(Date().timeIntervalSince1970 * 1000) + clock.offset.withLock { $0 } * 1000 })
        }

        /// Sets the clock `seconds` from the real one.
        func shift(_ seconds: Int64) { clock.offset.withLock { $0 = seconds } }

        func send(_ text: String) async throws -> WireResponse { try await app.exchange(text) }

        /// Client B's URL (`content-type: image/jpeg` signed, 900 s).
        func clientB() async throws -> String {
            let body = #"{"contentType":"image/jpeg","imageKey":"\#(UUID().uuidString)"}"#
            let r = try await send(
                "POST /presigned-url HTTP/1.1\r\nHost: a\r\nX-User-Id: 9\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            guard r.status == 200 else { throw TestFailure("issue: \(r.status) \(r.text)") }
            return try #require(try JSONValue(parsing: r.body)["signedUrl"]?.stringValue)
        }

        /// Client P's URL (host only, 600 s, a key with slashes).
        func clientP() async throws -> String {
            let r = try await send(
                "GET /presigned-url?type=PROFILE&ext=jpg HTTP/1.1\r\nHost: a\r\nX-User-Id: 42\r\n\r\n")
            guard r.status == 200 else { throw TestFailure("issue: \(r.status) \(r.text)") }
            return try #require(try JSONValue(parsing: r.body)["presignedUrl"]?.stringValue)
        }

        /// `POST /admin/explain` with `body`, as the holder of `key` (none when nil).
        func explain(_ body: JSONValue, key: String? = ExplainRGWTests.adminKey, header: String = "X-Api-Key")
            async throws -> WireResponse
        {
            let text = body.jsonText
            var head = "POST /admin/explain HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
            if let key { head += "\(header): \(header == "Authorization" ? "Bearer " : "")\(key)\r\n" }
            return try await send(head + "Content-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }

    }

    /// The seconds the application's clock is set off the real one.
    final class Clock: Sendable {
        let offset = Mutex<Int64>(0)
    }

    /// What RGW answered a PUT.
    struct Answer {
        let status: Int
        let body: String
        let date: String?
    }

    /// PUTs five bytes to RGW with `url` (its path and query as written), with `headers`, and `Host` the
    /// URL's authority unless `host` says otherwise.
    static func put(_ s3: TestEnvironment.S3, _ url: String, headers: [(String, String)], host: String? = nil)
        async throws -> Answer
    {
        let afterScheme = url[url.range(of: "://")!.upperBound...]
        let slash = afterScheme.firstIndex(of: "/")!
        let authority = String(afterScheme[..<slash])
        let target = String(afterScheme[slash...])
        let (rgwHost, rgwPort) = s3.hostPort
        var request = "PUT \(target) HTTP/1.1\r\nHost: \(host ?? authority)\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "Content-Length: 5\r\nConnection: close\r\n\r\nhello"
        let r = try await SocketTarget(host: rgwHost, port: rgwPort).exchange(request)
        return Answer(status: r.status, body: r.text, date: r.header("Date"))
    }

    /// The explain request for a URL, the client's method and headers, and RGW's answer.
    static func body(_ url: String, headers: [(String, String)], answer: Answer?) -> JSONValue {
        var object: JSONObject = ["url": .string(url), "method": "PUT"]
        var headerObject = JSONObject()
        for (name, value) in headers { headerObject[name] = .string(value) }
        object["headers"] = .object(headerObject)
        if let answer {
            object["errorXml"] = .string(answer.body)
            if let date = answer.date { object["storageDate"] = .string(date) }
        }
        return .object(object)
    }

    /// `presignd explain` with the same configuration, as the binary runs it (the command line read by
    /// `ConfigLoader`, then `ExplainCommand`, on a thread of its own: it may call storage): the status the
    /// binary exits with and its JSON. (The binary's own exits: BinaryTests.explainExits.)
    static func cli(
        _ env: [String: String], _ url: String, headers: [(String, String)], answer: Answer?
    ) async throws -> (Int32, JSONValue) {
        var arguments = ["explain", url, "--method", "PUT"]
        for (name, value) in headers { arguments += ["--header", "\(name): \(value)"] }
        if let answer {
            let path = Temporary.directory() + "/error.xml"
            try answer.body.write(toFile: path, atomically: true, encoding: .utf8)
            arguments += ["--error-xml", path]
        }
        var variables = ServerProcess.baseEnvironment
        for (name, value) in env { variables[name] = value }
        guard
            case .success(.explain(let config, let parsed)) = ConfigLoader.load(
                arguments: arguments, environment: variables)
        else {
            throw TestFailure("not an explain command line: \(arguments)")
        }
        let outcome = try await onThread { [variables] in
            ExplainCommand.run(
                config: config, arguments: parsed, nowSeconds: Int64(Date().timeIntervalSince1970),
                environment: variables)
        }
        return (outcome.status, try JSONValue(parsing: Array(outcome.output.utf8)))
    }

    /// The codes of an answer's findings.
    static func codes(_ answer: JSONValue) -> [String] {
        (answer["findings"]?.arrayValue ?? []).compactMap { $0["code"]?.stringValue }
    }

    /// The first finding with `code`.
    static func finding(_ answer: JSONValue, _ code: String) -> JSONValue? {
        answer["findings"]?.arrayValue?.first { $0["code"]?.stringValue == code }
    }

    /// A fault reproduced: RGW's status and code as seen, then the route's and the CLI's answers,
    /// which must both name `code` (with `field` when given) and never hold the secret key.
    static func reproduce(
        _ s3: TestEnvironment.S3, _ app: InProcess, env: [String: String], url: String, headers: [(String, String)],
        host: String? = nil, rgwStatus: Int, rgwCode: String?, code: String, field: String? = nil,
        cliStatus: Int32 = 1
    ) async throws -> JSONValue {
        let answer = try await put(s3, url, headers: headers, host: host)
        #expect(answer.status == rgwStatus, "RGW: \(answer.status) \(answer.body)")
        if let rgwCode { #expect(answer.body.contains("<Code>\(rgwCode)</Code>"), "\(answer.body)") }
        var sentHeaders = headers
        if let host { sentHeaders.append(("Host", host)) }
        let response = try await app.explain(body(url, headers: sentHeaders, answer: answer))
        #expect(response.status == 200, "\(response.text)")
        #expect(!response.text.contains(s3.secretKey))
        let json = try JSONValue(parsing: response.body)
        let found = finding(json, code)
        #expect(found != nil, "route: \(codes(json)) for \(code)")
        if let field { #expect(found?["field"]?.stringValue == field, "\(response.text)") }
        if let rgwCode { #expect(json["storageCode"]?.stringValue == rgwCode) }
        let (status, cliJSON) = try await cli(env, url, headers: sentHeaders, answer: answer)
        #expect(status == cliStatus, "\(cliJSON.jsonText)")
        #expect(finding(cliJSON, code) != nil, "cli: \(codes(cliJSON)) for \(code)")
        #expect(!cliJSON.jsonText.contains(s3.secretKey))
        return json
    }

    @Test("a URL used as issued uploads, and both forms say: no differences")
    func fine() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let url = try await app.clientB()
        let headers = [("Content-Type", "image/jpeg")]
        #expect(try await Self.put(s3, url, headers: headers).status == 200)
        let response = try await app.explain(Self.body(url, headers: headers, answer: nil))
        let json = try JSONValue(parsing: response.body)
        #expect(json["differences"]?.boolValue == false, "\(response.text)")
        #expect(json["findings"]?.arrayValue?.isEmpty == true)
        #expect(json["signatureMatches"]?.boolValue == true)
        #expect(json["issuedByThisServer"]?.boolValue == true)
        let (status, cliJSON) = try await Self.cli(env, url, headers: headers, answer: nil)
        #expect(status == 0)
        #expect(cliJSON["findings"]?.arrayValue?.isEmpty == true)
    }

    @Test("%2F re-encoded as %252F (the first seed): RGW refuses, explain names DOUBLE_ENCODED")
    func doubleEncoded() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let url = try await app.clientP().replacingOccurrences(of: "%2F", with: "%252F")
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 400,
            rgwCode: "InvalidArgument", code: "DOUBLE_ENCODED", field: "X-Amz-Credential")
        #expect(json["issuedByThisServer"]?.boolValue == true)
        #expect(Self.finding(json, "DOUBLE_ENCODED")?["severity"]?.stringValue == "error")
    }

    @Test("a dropped parameter: RGW refuses, explain names it and the issued value")
    func dropped() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let issued = try await app.clientP()
        let url = issued.replacingOccurrences(of: "&X-Amz-Expires=600", with: "")
        #expect(url != issued)
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "AccessDenied", code: "PARAMETER_MISSING", field: "X-Amz-Expires")
        #expect(Self.finding(json, "PARAMETER_MISSING")?["expected"]?.stringValue == "600")
    }

    @Test("a reordered query: RGW takes it (it sorts), explain says info only, exit 0")
    func reordered() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let issued = try await app.clientP()
        let (base, query) = (issued.split(separator: "?")[0], issued.split(separator: "?")[1])
        let url = String(base) + "?" + query.split(separator: "&").reversed().joined(separator: "&")
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 200, rgwCode: nil,
            code: "PARAMETER_REORDERED", cliStatus: 0)
        #expect(json["differences"]?.boolValue == false)
        #expect(Self.codes(json) == ["PARAMETER_REORDERED"])
    }

    @Test("an added parameter: RGW says SignatureDoesNotMatch, explain names PARAMETER_ADDED")
    func added() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let url = try await app.clientP() + "&x-id=PutObject"
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "SignatureDoesNotMatch", code: "PARAMETER_ADDED", field: "x-id")
        #expect(Self.finding(json, "PARAMETER_ADDED")?["severity"]?.stringValue == "error")
    }

    @Test("another Content-Type than the signed one: RGW refuses, explain names the signed value")
    func contentType() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let url = try await app.clientB()
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/png")], rgwStatus: 403,
            rgwCode: "SignatureDoesNotMatch", code: "SIGNED_HEADER_CHANGED", field: "header:content-type")
        let finding = Self.finding(json, "SIGNED_HEADER_CHANGED")
        #expect(finding?["expected"]?.stringValue == "image/jpeg")
        #expect(finding?["got"]?.stringValue == "image/png")
        // The signature the server would give a PNG request appears nowhere in the answer.
        let png = try Presigner(
            credentials: Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey)),
            region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path)
        let date = try #require(JSONValue(parsing: Array(json.jsonText.utf8))["expected"]?["validFrom"]?.stringValue)
        #expect(date.hasSuffix("Z"))
        let key = try #require(json["expected"]?["key"]?.stringValue)
        let amzDate = try #require(url.components(separatedBy: "X-Amz-Date=").last?.prefix(16))
        let when = try #require(AmzDate.epochSeconds(String(amzDate)))
        let pngURL = try png.presign(
            PresignRequest(
                method: "PUT", bucket: s3.bucket, key: key, expires: 900, signedHeaders: [("Content-Type", "image/png")]
            ),
            now: when
        ).url
        let pngSignature = try #require(pngURL.components(separatedBy: "X-Amz-Signature=").last)
        #expect(!json.jsonText.contains(pngSignature))
    }

    @Test("an expired URL (issued by a clock two hours behind): RGW says AccessDenied, explain EXPIRED")
    func expired() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        app.shift(-7200)
        let url = try await app.clientP()
        app.shift(0)
        _ = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "AccessDenied", code: "EXPIRED", field: "X-Amz-Expires")
    }

    @Test("sent to another host name: RGW says SignatureDoesNotMatch, explain WRONG_HOST")
    func wrongHost() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let url = try await app.clientP().replacingOccurrences(of: "://127.0.0.1:", with: "://localhost:")
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "SignatureDoesNotMatch", code: "WRONG_HOST", field: "host")
        #expect(json["issuedByThisServer"]?.boolValue == true)
        #expect(
            Self.finding(json, "WRONG_HOST")?["expected"]?.stringValue
                == s3.endpoint.replacingOccurrences(of: "http://", with: ""))
    }

    @Test("a path-style URL turned virtual-hosted: RGW refuses, explain ADDRESSING_STYLE")
    func addressing() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let issued = try await app.clientP()
        let authority = s3.endpoint.replacingOccurrences(of: "http://", with: "")
        let url = issued.replacingOccurrences(
            of: "http://\(authority)/\(s3.bucket)/", with: "http://\(s3.bucket).\(authority)/")
        #expect(url != issued)
        let answer = try await Self.put(s3, url, headers: [("Content-Type", "image/jpeg")])
        #expect(answer.status >= 400, "RGW: \(answer.status) \(answer.body)")
        let response = try await app.explain(Self.body(url, headers: [("Content-Type", "image/jpeg")], answer: answer))
        let json = try JSONValue(parsing: response.body)
        #expect(Self.finding(json, "ADDRESSING_STYLE")?["severity"]?.stringValue == "error", "\(response.text)")
        #expect(json["issuedByThisServer"]?.boolValue == true)
        let (status, cliJSON) = try await Self.cli(env, url, headers: [("Content-Type", "image/jpeg")], answer: answer)
        #expect(status == 1)
        #expect(Self.finding(cliJSON, "ADDRESSING_STYLE") != nil)
    }

    @Test("X-Amz-Date an hour ahead (the issuing clock runs fast): explain CLOCK_SKEW")
    func clockSkew() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        app.shift(3600)
        let url = try await app.clientP()
        app.shift(0)
        // Ceph RGW 16 does not check the start of a presigned URL's validity (AWS S3 does): it takes the PUT.
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 200, rgwCode: nil,
            code: "CLOCK_SKEW", field: "X-Amz-Date")
        #expect(Self.finding(json, "CLOCK_SKEW")?["severity"]?.stringValue == "error")
        #expect(json["signatureMatches"]?.boolValue == true)
    }

    @Test("a credential scope of another region: RGW refuses, explain CREDENTIAL_REGION")
    func credentialRegion() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let url = try await app.clientP().replacingOccurrences(of: "%2F\(s3.region)%2F", with: "%2Fkr-standard%2F")
        _ = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "SignatureDoesNotMatch", code: "CREDENTIAL_REGION", field: "X-Amz-Credential")
    }

    @Test("a URL signed with another secret for the same key id: RGW refuses, explain SIGNATURE_MISMATCH")
    func notIssuedHere() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let forger = try Presigner(
            credentials: Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret("not-the-rgw-secret-key")),
            region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path)
        let url = try forger.presign(
            PresignRequest(method: "PUT", bucket: s3.bucket, key: "explain/forged.jpg", expires: 600),
            now: Int64(Date().timeIntervalSince1970)
        ).url
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "SignatureDoesNotMatch", code: "SIGNATURE_MISMATCH")
        #expect(json["issuedByThisServer"]?.boolValue == false)
    }

    @Test("the server holds a wrong secret: the URL is what it signs, RGW refuses, explain SECRET_KEY_MISMATCH")
    func wrongServerSecret() async throws {
        let s3 = try TestEnvironment.s3()
        var env = Self.environment(s3)
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = "not-the-secret-rgw-has-for-this-key-000000"
        let app = try await InProcess(env)
        let url = try await app.clientB()
        // RGW's answer names nothing but the code (an empty Message, no StringToSign).
        let answer = try await Self.put(s3, url, headers: [("Content-Type", "image/jpeg")])
        #expect(!answer.body.contains("StringToSign"), "\(answer.body)")
        let json = try await Self.reproduce(
            s3, app, env: env, url: url, headers: [("Content-Type", "image/jpeg")], rgwStatus: 403,
            rgwCode: "SignatureDoesNotMatch", code: "SECRET_KEY_MISMATCH", field: "credentials")
        #expect(json["signatureMatches"]?.boolValue == true, "the URL itself is what the server signs")
        #expect(Self.finding(json, "SECRET_KEY_MISMATCH")?["severity"]?.stringValue == "error")
        #expect(!json.jsonText.contains("not-the-secret-rgw-has"))
    }

    @Test("a key holding a literal %4F: uploads as issued; with only the signature changed, no DOUBLE_ENCODED")
    func literalPercentKey() async throws {
        let s3 = try TestEnvironment.s3()
        let env = Self.environment(s3)
        let app = try await InProcess(env)
        let signer = try Presigner(
            credentials: Credentials(accessKeyId: s3.accessKey, secretAccessKey: Secret(s3.secretKey)),
            region: s3.region, endpoint: Endpoint(parsing: s3.endpoint), addressing: .path)
        let issue = {
            try signer.presign(
                PresignRequest(
                    method: "PUT", bucket: s3.bucket, key: "explain/50%4F-\(UUID().uuidString).jpg", expires: 600),
                now: Int64(Date().timeIntervalSince1970)
            ).url
        }
        let url = try issue()
        #expect(url.contains("50%254F-"))
        #expect(try await Self.put(s3, url, headers: []).status == 200, "RGW takes the key as issued")
        let other = try issue()
        let tampered = String(other.dropLast()) + (other.last == "0" ? "1" : "0")
        let json = try await Self.reproduce(
            s3, app, env: env, url: tampered, headers: [], rgwStatus: 403, rgwCode: "SignatureDoesNotMatch",
            code: "SIGNATURE_MISMATCH")
        let doubles = (json["findings"]?.arrayValue ?? []).filter { $0["code"]?.stringValue == "DOUBLE_ENCODED" }
        #expect(doubles.allSatisfy { $0["severity"]?.stringValue == "info" }, "\(json.jsonText)")
    }

    @Test("the route: 404 when off, 401 without or with an unknown key, 403 for a non-admin key or a user")
    func access() async throws {
        let s3 = try TestEnvironment.s3()
        let off = try await InProcess(Self.environment(s3, enabled: false))
        let body: JSONValue = ["url": "http://127.0.0.1:1/uploads/a.jpg"]
        #expect(try await off.explain(body).status == 404)
        let app = try await InProcess(Self.environment(s3))
        #expect(try await app.explain(body, key: nil).status == 401)
        #expect(try await app.explain(body, key: "not-a-configured-key-0123456789abcdef").status == 401)
        let plain = try await app.explain(body, key: Self.plainKey)
        #expect(plain.status == 403)
        #expect(try JSONValue(parsing: plain.body)["code"]?.stringValue == "ADMIN_REQUIRED")
        #expect(
            try await app.explain(body, key: "eyJhbGciOiJIUzI1NiJ9.e30.c2ln", header: "Authorization").status == 403)
        #expect(try await app.explain(body, key: Self.adminKey, header: "Authorization").status == 200)
        let bad = try await app.explain(["method": "PUT"])
        #expect(bad.status == 422)
        #expect(bad.text.contains("url is required"))
    }
}
