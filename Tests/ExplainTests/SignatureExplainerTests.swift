import Crypto
import Testing

@testable import Explain
@testable import SigV4

/// The explainer on URLs this suite presigns and then breaks the way clients do: each fault named,
/// the signature confirming it, and nothing secret in the answer.
struct SignatureExplainerTests {
    static let secret = "explain-test-secret-key-0000000000000001"
    static let credentials = Credentials(accessKeyId: "AKIDEXPLAIN", secretAccessKey: Secret(secret))
    /// 2026-12-01T12:00:00Z.
    static let issuedAt: Int64 = 1_796_126_400

    static func presigner(
        addressing: AddressingStyle = .path, credentials: Credentials = credentials, region: String = "us-east-1",
        endpoint: String = "http://127.0.0.1:9000"
    ) -> Presigner {
        try! Presigner(
            credentials: credentials, region: region, endpoint: Endpoint(parsing: endpoint), addressing: addressing)
    }

    static func explainer(_ presigner: Presigner = presigner()) -> SignatureExplainer {
        SignatureExplainer(
            signer: { presigner }, bucket: "uploads", contentTypes: ["image/jpeg", "image/png", "image/heic"],
            expiries: [600, 900])
    }

    /// Client B's URL: `content-type` signed, 900 s.
    static func clientB(_ presigner: Presigner = presigner(), at time: Int64 = issuedAt, expires: Int = 900) -> String {
        try! presigner.presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a", expires: expires,
                signedHeaders: [("Content-Type", "image/jpeg")]), now: time
        ).url
    }

    /// Client P's URL: host only, 600 s, a key with slashes.
    static func clientP(_ presigner: Presigner = presigner(), at time: Int64 = issuedAt) -> String {
        try! presigner.presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "delete/profile/7/abc_1.jpeg", expires: 600),
            now: time
        ).url
    }

    static func codes(_ explanation: SignatureExplanation) -> [ExplainCode] { explanation.findings.map(\.code) }

    static func finding(_ explanation: SignatureExplanation, _ code: ExplainCode) -> ExplainFinding? {
        explanation.findings.first { $0.code == code }
    }

    @Test("a URL used as issued: no findings, the signature matches, issued here")
    func fine() {
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientB(), method: "PUT", headers: [("Content-Type", "image/jpeg")]),
            now: Self.issuedAt + 10)
        #expect(explanation.findings.isEmpty, "\(explanation.findings)")
        #expect(explanation.signatureMatches)
        #expect(explanation.issuedByThisServer == true)
        #expect(!explanation.hasDifferences)
        #expect(explanation.expected?.signedHeaders.first?.value == "image/jpeg")
        #expect(explanation.expected?.expiresAt == "2026-12-01T12:15:00Z")
    }

    @Test("the recomputed canonical request and string to sign are the presigner's own")
    func sameAsPresigner() throws {
        let presigner = Self.presigner()
        var inspected = ("", "")
        let url = try presigner.presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "a b/ü+%2F.jpg", expires: 900,
                signedHeaders: [("Content-Type", "image/png")]), now: Self.issuedAt
        ) { inspected = ($0, $1) }.url
        let explanation = Self.explainer(presigner).explain(
            ExplainInput(url: url, method: "PUT", headers: [("Content-Type", "image/png")]), now: Self.issuedAt)
        #expect(explanation.signatureMatches)
        #expect(explanation.expected?.canonicalRequest == inspected.0)
        #expect(explanation.expected?.stringToSign == inspected.1)
        #expect(explanation.expected?.key == "a b/ü+%2F.jpg")
    }

    @Test("%2F re-encoded as %252F (the first seed's URLComponents.queryItems bug)")
    func doubleEncoded() {
        let broken = Self.clientP().replacingAll("%2F", with: "%252F")
        let explanation = Self.explainer().explain(ExplainInput(url: broken, method: "PUT"), now: Self.issuedAt + 5)
        let finding = Self.finding(explanation, .doubleEncoded)
        #expect(finding?.field == "X-Amz-Credential")
        #expect(finding?.severity == .error)
        #expect(finding?.got?.contains("%252F") == true)
        #expect(explanation.issuedByThisServer == true)
        #expect(!explanation.signatureMatches)
        #expect(!Self.codes(explanation).contains(.signatureMismatch))
        #expect(!Self.codes(explanation).contains(.credentialScope))
    }

    @Test("%2F decoded to / is harmless (info only): storage decodes before signing")
    func notEncoded() {
        let decoded = Self.clientP().replacingAll("%2F", with: "/")
        let explanation = Self.explainer().explain(ExplainInput(url: decoded, method: "PUT"), now: Self.issuedAt + 5)
        #expect(Self.codes(explanation) == [.notEncoded])
        #expect(explanation.signatureMatches)
        #expect(!explanation.hasDifferences)
    }

    @Test("a dropped parameter is named, and its issued value found among the server's lifetimes")
    func dropped() {
        let url = Self.clientP()
        let (base, pairs) = Self.split(url)
        let dropped = base + "?" + pairs.filter { !$0.hasPrefix("X-Amz-Expires=") }.joined(separator: "&")
        let explanation = Self.explainer().explain(ExplainInput(url: dropped, method: "PUT"), now: Self.issuedAt + 5)
        let finding = Self.finding(explanation, .parameterMissing)
        #expect(finding?.field == "X-Amz-Expires")
        #expect(finding?.expected == "600")
        #expect(explanation.issuedByThisServer == true)
        #expect(!explanation.signatureMatches)
    }

    @Test("a reordered query is info only: storage sorts it")
    func reordered() {
        let (base, pairs) = Self.split(Self.clientP())
        let explanation = Self.explainer().explain(
            ExplainInput(url: base + "?" + pairs.reversed().joined(separator: "&"), method: "PUT"),
            now: Self.issuedAt + 5)
        #expect(Self.codes(explanation) == [.parameterReordered])
        #expect(Self.finding(explanation, .parameterReordered)?.severity == .info)
        #expect(explanation.signatureMatches)
    }

    @Test("an added parameter is confirmed by the signature")
    func added() {
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientP() + "&x-id=PutObject", method: "PUT"), now: Self.issuedAt + 5)
        let finding = Self.finding(explanation, .parameterAdded)
        #expect(finding?.field == "x-id")
        #expect(finding?.severity == .error)
        #expect(explanation.issuedByThisServer == true)
    }

    @Test("a repeated parameter is confirmed by the signature")
    func duplicated() {
        let url = Self.clientP()
        let explanation = Self.explainer().explain(
            ExplainInput(url: url + "&X-Amz-Expires=600", method: "PUT"), now: Self.issuedAt + 5)
        #expect(Self.finding(explanation, .parameterDuplicated)?.severity == .error)
        #expect(explanation.issuedByThisServer == true)
    }

    @Test("another Content-Type than the signed one: the signed value is named")
    func contentType() {
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientB(), method: "PUT", headers: [("Content-Type", "image/png")]),
            now: Self.issuedAt + 5)
        let finding = Self.finding(explanation, .signedHeaderChanged)
        #expect(finding?.expected == "image/jpeg")
        #expect(finding?.got == "image/png")
        #expect(explanation.issuedByThisServer == true)
        #expect(Self.codes(explanation) == [.signedHeaderChanged])
    }

    @Test("a signed Content-Type not sent at all")
    func contentTypeMissing() {
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientB(), method: "PUT", headers: [("Content-Length", "5")]), now: Self.issuedAt)
        #expect(Self.finding(explanation, .signedHeaderMissing)?.field == "header:content-type")
    }

    @Test("headers not given: the signed Content-Type is found among the server's types, and named as one to send")
    func contentTypeFound() {
        let explanation = Self.explainer().explain(ExplainInput(url: Self.clientB()), now: Self.issuedAt)
        #expect(Self.codes(explanation) == [.signedHeadersUnchecked], "\(explanation.findings)")
        #expect(Self.finding(explanation, .signedHeadersUnchecked)?.expected == "content-type: image/jpeg")
        #expect(explanation.issuedByThisServer == true)
        #expect(explanation.expected?.signedHeaders.first { $0.name == "content-type" }?.value == "image/jpeg")
        #expect(explanation.expected?.methodAssumed == true)
    }

    @Test("an expired URL: X-Amz-Date + X-Amz-Expires is past")
    func expired() {
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientP(), method: "PUT"), now: Self.issuedAt + 601)
        let finding = Self.finding(explanation, .expired)
        #expect(finding?.severity == .error)
        #expect(finding?.expected == "a request before 2026-12-01T12:10:00Z")
        #expect(finding?.got?.contains("1 s late") == true)
        #expect(explanation.signatureMatches)
    }

    @Test("expired at storage's clock, though not at the server's: storage's clock is named")
    func storageClock() {
        let explanation = Self.explainer().explain(
            ExplainInput(
                url: Self.clientP(), method: "PUT",
                storage: StorageErrorReport(code: "AccessDenied", storageTime: Self.issuedAt + 3600)),
            now: Self.issuedAt + 10)
        #expect(Self.codes(explanation).contains(.storageClock))
        #expect(Self.finding(explanation, .expired)?.got?.hasPrefix("storage's clock") == true)
        #expect(explanation.storageCode == "AccessDenied")
    }

    @Test("X-Amz-Date in the future: clock skew (a warning within 15 minutes, an error beyond)")
    func clockSkew() {
        let url = Self.clientP(at: Self.issuedAt + 3600)
        let explanation = Self.explainer().explain(ExplainInput(url: url, method: "PUT"), now: Self.issuedAt)
        let finding = Self.finding(explanation, .clockSkew)
        #expect(finding?.severity == .error)
        #expect(finding?.hint.contains("3600 s ahead") == true)
        #expect(explanation.signatureMatches)
        let near = Self.explainer().explain(
            ExplainInput(url: Self.clientP(at: Self.issuedAt + 60), method: "PUT"), now: Self.issuedAt)
        #expect(Self.finding(near, .clockSkew)?.severity == .warning)
    }

    @Test("sent to another host: the server's endpoint is named and the signature confirms it")
    func wrongHost() {
        let moved = Self.clientP().replacingAll("127.0.0.1:9000", with: "localhost:9000")
        let explanation = Self.explainer().explain(ExplainInput(url: moved, method: "PUT"), now: Self.issuedAt)
        let finding = Self.finding(explanation, .wrongHost)
        #expect(finding?.expected == "127.0.0.1:9000")
        #expect(finding?.got == "localhost:9000")
        #expect(finding?.severity == .error)
        #expect(explanation.issuedByThisServer == true)
    }

    @Test("a Host header other than the URL's host")
    func hostHeader() {
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientP(), method: "PUT", headers: [("Host", "proxy.internal:8080")]),
            now: Self.issuedAt)
        let finding = Self.finding(explanation, .wrongHost)
        #expect(finding?.field == "header:host")
        #expect(finding?.severity == .error)
    }

    @Test("path-style turned virtual-hosted: the addressing style is named")
    func addressing() throws {
        let presigner = Self.presigner(endpoint: "https://s3.example.com")
        let url = Self.clientP(presigner)
        #expect(url.hasPrefix("https://s3.example.com/uploads/"))
        let virtual = url.replacingAll("https://s3.example.com/uploads/", with: "https://uploads.s3.example.com/")
        let explanation = Self.explainer(presigner).explain(
            ExplainInput(url: virtual, method: "PUT"), now: Self.issuedAt)
        let finding = Self.finding(explanation, .addressingStyle)
        #expect(finding?.severity == .error)
        #expect(finding?.expected?.hasPrefix("path-style") == true)
        #expect(explanation.issuedByThisServer == true)
    }

    @Test("a credential scope of another region, day or key")
    func credentialScope() {
        let url = Self.clientP()
        let region = Self.explainer().explain(
            ExplainInput(url: url.replacingAll("%2Fus-east-1%2F", with: "%2Fkr-standard%2F"), method: "PUT"),
            now: Self.issuedAt)
        #expect(Self.finding(region, .credentialRegion)?.got == "kr-standard")
        #expect(region.issuedByThisServer == true)
        let day = Self.explainer().explain(
            ExplainInput(url: url.replacingAll("%2F20261201%2F", with: "%2F20261130%2F"), method: "PUT"),
            now: Self.issuedAt)
        #expect(Self.finding(day, .credentialDate)?.expected == "20261201")
        let other = Self.presigner(
            credentials: Credentials(accessKeyId: "AKIDOTHER", secretAccessKey: Secret("another-secret")))
        let foreign = Self.explainer().explain(
            ExplainInput(url: Self.clientP(other), method: "PUT"), now: Self.issuedAt)
        #expect(Self.finding(foreign, .credentialKeyId)?.got == "AKIDOTHER")
        #expect(Self.codes(foreign).contains(.signatureMismatch))
        #expect(foreign.issuedByThisServer == false)
    }

    @Test("the same key id with another secret: not issued by this server")
    func otherSecret() {
        let other = Self.presigner(
            credentials: Credentials(accessKeyId: "AKIDEXPLAIN", secretAccessKey: Secret("not-the-server-secret")))
        let explanation = Self.explainer().explain(
            ExplainInput(url: Self.clientP(other), method: "PUT"), now: Self.issuedAt)
        #expect(Self.codes(explanation) == [.signatureMismatch])
        #expect(explanation.issuedByThisServer == false)
        #expect(!explanation.signatureMatches)
    }

    @Test("another method than the signed one")
    func method() throws {
        let url = try Self.presigner().presign(
            PresignRequest(method: "GET", bucket: "uploads", key: "a.jpg", expires: 600), now: Self.issuedAt
        ).url
        let explanation = Self.explainer().explain(ExplainInput(url: url, method: "PUT"), now: Self.issuedAt)
        let finding = Self.finding(explanation, .method)
        #expect(finding?.expected == "GET")
        #expect(finding?.got == "PUT")
        #expect(finding?.severity == .error)
    }

    @Test("a re-encoded path (a space %20 sent as %2520)")
    func pathEncodedTwice() throws {
        let url = try Self.presigner().presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "a b.jpg", expires: 600), now: Self.issuedAt
        ).url
        let explanation = Self.explainer().explain(
            ExplainInput(url: url.replacingAll("a%20b", with: "a%2520b"), method: "PUT"), now: Self.issuedAt)
        let finding = Self.finding(explanation, .doubleEncoded)
        #expect(finding?.field == "path")
        #expect(finding?.severity == .error)
    }

    @Test("a malformed URL, a malformed date and signature")
    func malformed() {
        let explanation = Self.explainer().explain(ExplainInput(url: "not a url"), now: Self.issuedAt)
        #expect(Self.codes(explanation) == [.malformedURL])
        let url = Self.clientP().replacingAll("X-Amz-Date=20261201T120000Z", with: "X-Amz-Date=2026-12-01")
        let badDate = Self.explainer().explain(ExplainInput(url: url, method: "PUT"), now: Self.issuedAt)
        #expect(Self.finding(badDate, .parameterInvalid)?.field == "X-Amz-Date")
        #expect(badDate.issuedByThisServer == nil)
    }

    @Test("storage's canonical request (AWS S3's error XML) compared part by part")
    func storageCanonicalRequest() {
        let url = Self.clientB()
        var theirs = ""
        _ = try? Self.presigner().presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a", expires: 900,
                signedHeaders: [("Content-Type", "image/png")]), now: Self.issuedAt
        ) { canonical, _ in theirs = canonical }
        let explanation = Self.explainer().explain(
            ExplainInput(
                url: url, method: "PUT", headers: [("Content-Type", "image/png")],
                storage: StorageErrorReport(code: "SignatureDoesNotMatch", canonicalRequest: theirs)),
            now: Self.issuedAt)
        let finding = explanation.findings.first { $0.code == .storageCanonicalRequest }
        #expect(finding?.field == "canonicalRequest.header.content-type")
        #expect(finding?.expected == "image/jpeg")
        #expect(finding?.got == "image/png")
    }

    @Test("temporary credentials: a dropped session token is named, and the token never shows")
    func sessionToken() throws {
        let token = "FQoGZXIvYXdzEXAMPLETOKEN/with+slash=="
        let temporary = Self.presigner(
            credentials: Credentials(
                accessKeyId: "ASIAEXPLAIN", secretAccessKey: Secret(Self.secret), sessionToken: Secret(token)))
        let url = Self.clientP(temporary)
        let (base, pairs) = Self.split(url)
        let dropped = base + "?" + pairs.filter { !$0.hasPrefix("X-Amz-Security-Token=") }.joined(separator: "&")
        let explanation = Self.explainer(temporary).explain(
            ExplainInput(url: dropped, method: "PUT"), now: Self.issuedAt)
        let finding = Self.finding(explanation, .parameterMissing)
        #expect(finding?.field == "X-Amz-Security-Token")
        #expect(finding?.severity == .error)
        #expect(explanation.issuedByThisServer == true)
        let text = "\(explanation)"
        #expect(!text.contains(token))
        #expect(!text.contains(URIEncoding.encode(token)))
        #expect(!text.contains(Self.secret))
        #expect(explanation.expected?.canonicalRequest.contains("X-Amz-Security-Token=<redacted>") == true)
    }

    @Test("nothing in an explanation holds the secret key or the server's signature")
    func noSecrets() throws {
        let url = Self.clientB()
        let explanation = Self.explainer().explain(
            ExplainInput(url: url, method: "PUT", headers: [("Content-Type", "image/png")]), now: Self.issuedAt)
        let text = "\(explanation)"
        #expect(!text.contains(Self.secret))
        // The signature the server computes for the request as sent (a PNG) appears nowhere.
        let png = try Self.presigner().presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a", expires: 900,
                signedHeaders: [("Content-Type", "image/png")]), now: Self.issuedAt
        ).url
        let pngSignature = String(png.split(separator: "=").last!)
        #expect(!text.contains(pngSignature))
    }

    @Test("multipart part URLs and virtual-hosted URLs used as issued: no findings")
    func otherShapes() throws {
        let part = try Self.presigner().presignUploadPart(
            bucket: "uploads", key: "big/file.bin", uploadId: "a/b+c=d", partNumber: 3, expires: 600, now: Self.issuedAt
        )
        let partExplanation = Self.explainer().explain(ExplainInput(url: part.url, method: "PUT"), now: Self.issuedAt)
        #expect(partExplanation.findings.isEmpty, "\(partExplanation.findings)")
        #expect(partExplanation.signatureMatches)
        #expect(partExplanation.expected?.parameters.prefix(2) == ["partNumber", "uploadId"])
        let virtual = Self.presigner(addressing: .virtual, endpoint: "https://s3.example.com")
        let url = Self.clientB(virtual)
        #expect(url.hasPrefix("https://uploads.s3.example.com/"))
        let explanation = Self.explainer(virtual).explain(
            ExplainInput(url: url, method: "PUT", headers: [("Content-Type", "image/jpeg")]), now: Self.issuedAt)
        #expect(explanation.findings.isEmpty, "\(explanation.findings)")
        #expect(explanation.expected?.addressing == "virtual")
        // Moved to path-style by the client: named, and confirmed.
        let moved = url.replacingAll("https://uploads.s3.example.com/", with: "https://s3.example.com/uploads/")
        let movedExplanation = Self.explainer(virtual).explain(
            ExplainInput(url: moved, method: "PUT", headers: [("Content-Type", "image/jpeg")]), now: Self.issuedAt)
        #expect(Self.finding(movedExplanation, .addressingStyle)?.severity == .error)
        #expect(movedExplanation.issuedByThisServer == true)
    }

    @Test("several faults at once are each confirmed by one reading")
    func severalFaults() {
        let broken = Self.clientB().replacingAll("%2F", with: "%252F") + "&x-id=PutObject"
        let explanation = Self.explainer().explain(
            ExplainInput(url: broken, method: "PUT", headers: [("Content-Type", "image/png")]), now: Self.issuedAt)
        let errors = Set(explanation.findings.filter { $0.severity == .error }.map(\.code))
        #expect(errors == [.doubleEncoded, .parameterAdded, .signedHeaderChanged], "\(explanation.findings)")
        #expect(explanation.issuedByThisServer == true)
    }

    /// The URL's base and its raw query pairs.
    static func split(_ url: String) -> (String, [String]) {
        let halves = url.split(separator: "?", maxSplits: 1)
        return (String(halves[0]), halves[1].split(separator: "&").map(String.init))
    }
}

extension String {
    /// Every occurrence of `target` replaced (no Foundation in this suite).
    func replacingAll(_ target: String, with replacement: String) -> String {
        var output = ""
        var rest = Substring(self)
        while !rest.isEmpty {
            if rest.hasPrefix(target) {
                output += replacement
                rest = rest.dropFirst(target.count)
            } else {
                output.append(rest.removeFirst())
            }
        }
        return output
    }
}
