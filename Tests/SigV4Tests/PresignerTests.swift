import Crypto
import Testing

@testable import SigV4

/// Query-string presigning: AWS's worked example, botocore's fixtures, client P's URL shape, the
/// addressing rules, the refusals, redaction and concurrent use.
struct PresignerTests {
    /// AWS's documented example credentials.
    static let credentials = Credentials(
        accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: Secret("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"))
    /// 2026-11-29T08:59:31Z, the time of the fixtures.
    static let fixtureTime: Int64 = 1_795_942_771
    /// The order client P (the budgeting app, which rebuilds the URL from its parts) puts the query in.
    static let clientPOrder = [
        "X-Amz-Algorithm", "X-Amz-Date", "X-Amz-SignedHeaders", "X-Amz-Credential", "X-Amz-Expires", "X-Amz-Signature",
    ]

    /// A presigner on `endpoint`.
    static func presigner(
        _ endpoint: String = "https://s3.ap-northeast-2.amazonaws.com", region: String = "ap-northeast-2",
        addressing: AddressingStyle = .path, credentials: Credentials = credentials
    ) throws -> Presigner {
        try Presigner(
            credentials: credentials, region: region, endpoint: Endpoint(parsing: endpoint), addressing: addressing)
    }

    /// What the signer hashed and signed.
    struct Inspection {
        var canonicalRequest = ""
        var stringToSign = ""
    }

    /// `presigner.presign(request, now:)`, also returning the canonical request and string to sign.
    static func presignInspecting(_ presigner: Presigner, _ request: PresignRequest, now: Int64) throws -> (
        PresignedURL, Inspection
    ) {
        var inspection = Inspection()
        let presigned = try presigner.presign(request, now: now) {
            inspection = Inspection(canonicalRequest: $0, stringToSign: $1)
        }
        return (presigned, inspection)
    }

    // MARK: AWS's worked example

    @Test("AWS example: GET examplebucket/test.txt, virtual-hosted, 86400 s")
    func awsQueryExample() throws {
        // "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", Amazon S3 API
        // Reference: canonical request, string to sign and signature as printed there.
        let presigner = try Self.presigner("https://s3.amazonaws.com", region: "us-east-1", addressing: .virtual)
        let (presigned, inspection) = try Self.presignInspecting(
            presigner, PresignRequest(method: "GET", bucket: "examplebucket", key: "test.txt", expires: 86_400),
            now: 1_369_353_600)
        let (canonicalRequest, stringToSign) = (inspection.canonicalRequest, inspection.stringToSign)
        #expect(
            canonicalRequest == """
                GET
                /test.txt
                X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host
                host:examplebucket.s3.amazonaws.com

                host
                UNSIGNED-PAYLOAD
                """)
        #expect(
            stringToSign == """
                AWS4-HMAC-SHA256
                20130524T000000Z
                20130524/us-east-1/s3/aws4_request
                3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04
                """)
        #expect(
            presigned.url
                == "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-SignedHeaders=host"
                + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Expires=86400"
                + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
        #expect(presigned.headers.isEmpty)
        #expect(presigned.expiresAt == 1_369_353_600 + 86_400)
    }

    @Test("signing key: AWS's derivation example (iam, us-east-1, 20150830)")
    func signingKeyDerivation() {
        // "Examples of how to derive a signing key for Signature Version 4", AWS General Reference.
        let cache = SigningKeyCache(
            secret: Secret("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"), region: "us-east-1", service: "iam")
        #expect(
            cache.signingKeyBytes(AmzDate(epochSeconds: 1_440_938_160)).hex
                == "c4afb1cc5771d871763a393e44b703571b55cc28424d1a5e86da6ed3c154a4b9")
    }

    // MARK: botocore fixtures

    @Test("the fixtures file is there and holds the cases")
    func fixturesLoad() throws {
        let fixtures = try PresignFixtures.load()
        #expect(fixtures.source.contains("botocore"))
        #expect(fixtures.cases.count >= 10)
        #expect(PresignFixtures.cases.count == fixtures.cases.count)
    }

    @Test("botocore fixtures: same signature, path and query parameters", arguments: PresignFixtures.cases)
    func botocoreFixture(_ fixture: PresignFixtures.Case) throws {
        let fixtures = try PresignFixtures.load()
        let credentials = Credentials(
            accessKeyId: fixtures.accessKeyId, secretAccessKey: Secret(fixtures.secretAccessKey),
            sessionToken: fixture.sessionToken.map(Secret.init))
        let addressing = try #require(AddressingStyle(rawValue: fixture.addressing))
        let presigner = try Self.presigner(
            fixture.endpoint, region: fixture.region, addressing: addressing, credentials: credentials)
        let request = PresignRequest(
            method: fixture.method, bucket: fixture.bucket, key: fixture.key, expires: fixture.expires,
            signedHeaders: fixture.signedHeaders.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        let now = try PresignFixtures.epochSeconds(amzDate: fixture.amzDate)
        let presigned = try presigner.presign(request, now: now)

        let ours = TestURL(presigned.url)
        let theirs = TestURL(fixture.url)
        #expect(ours.value("X-Amz-Signature") == fixture.signature)
        #expect(ours.base == theirs.base)
        #expect(ours.pairSet == theirs.pairSet)
        var order = Self.clientPOrder
        if fixture.sessionToken != nil { order.insert("X-Amz-Security-Token", at: 5) }
        #expect(ours.names == order)
        #expect(ours.pairs.allSatisfy { $0.equalsSigns == 1 })
        #expect(presigned.headers.map(\.value) == fixture.signedHeaders.sorted { $0.key < $1.key }.map(\.value))
    }

    @Test("botocore 1.43.11: a multipart part URL with partNumber and uploadId")
    func multipartPart() throws {
        // generate_presigned_url("upload_part", PartNumber=3, UploadId="a/b+c=d", ExpiresIn=3600)
        let presigned = try Self.presigner().presign(
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "big/video.mp4", expires: 3600,
                query: [("partNumber", "3"), ("uploadId", "a/b+c=d")]),
            now: Self.fixtureTime)
        let url = TestURL(presigned.url)
        #expect(url.value("X-Amz-Signature") == "34a12a2745a1bde9ad75e9968350e87bfa3cccbe8e11c0a0289a7fe8bba86117")
        #expect(Array(url.names.prefix(2)) == ["partNumber", "uploadId"])
        #expect(url.value("uploadId") == "a%2Fb%2Bc%3Dd")
    }

    @Test("botocore 1.43.11: content-length, content-md5, content-type, if-none-match, x-amz-checksum-sha256")
    func allOptionalHeaders() throws {
        let headers: [(name: String, value: String)] = [
            ("X-Amz-Checksum-SHA256", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="), ("Content-Type", "image/jpeg"),
            ("If-None-Match", "*"), ("Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="), ("Content-Length", "1234"),
        ]
        let presigned = try Self.presigner().presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "k.jpg", expires: 600, signedHeaders: headers),
            now: Self.fixtureTime)
        let url = TestURL(presigned.url)
        #expect(url.value("X-Amz-Signature") == "3f14c9a1eb22a08568f9187f428c64bb4ba647d4b3ab74e04e4088f7d4fd3f50")
        #expect(
            url.value("X-Amz-SignedHeaders")
                == "content-length%3Bcontent-md5%3Bcontent-type%3Bhost%3Bif-none-match%3Bx-amz-checksum-sha256")
        #expect(
            presigned.headers.map(\.name) == [
                "Content-Length", "Content-MD5", "Content-Type", "If-None-Match", "x-amz-checksum-sha256",
            ])
        #expect(
            presigned.headers.map(\.value) == [
                "1234", "1B2M2Y8AsgTpgAmY7PhCfg==", "image/jpeg", "*", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
            ])
    }

    // MARK: client P

    @Test("client P: path-style, host only, the six parameters in its order, key from the path")
    func clientPShape() throws {
        let key = "delete/profile/42/0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a_1764406771000.jpg"
        let presigned = try Self.presigner().presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: key, expires: 600), now: Self.fixtureTime)
        let url = TestURL(presigned.url)
        #expect(url.names == Self.clientPOrder)
        #expect(url.pairs.allSatisfy { $0.equalsSigns == 1 && !$0.value.contains("/") })
        #expect(url.value("X-Amz-Credential") == "AKIAIOSFODNN7EXAMPLE%2F20261129%2Fap-northeast-2%2Fs3%2Faws4_request")
        #expect(url.value("X-Amz-SignedHeaders") == "host")
        #expect(url.value("X-Amz-Expires") == "600")
        let path = url.base.dropFirst("https://s3.ap-northeast-2.amazonaws.com/".count)
        #expect(path.split(separator: "/", maxSplits: 1).last.map(String.init) == key)
        // Rebuilding the query in client P's order gives the same URL back.
        let rebuilt = url.base + "?" + Self.clientPOrder.map { "\($0)=\(url.value($0) ?? "")" }.joined(separator: "&")
        #expect(rebuilt == presigned.url)
    }

    // MARK: addressing

    /// Endpoint, style, bucket, and the URL start expected.
    static let addressingTable: [(String, AddressingStyle, String, String)] = [
        ("https://s3.amazonaws.com", .virtual, "my-bucket", "https://my-bucket.s3.amazonaws.com/k"),
        ("https://s3.amazonaws.com", .virtual, "my.bucket", "https://s3.amazonaws.com/my.bucket/k"),
        ("http://s3.example.com", .virtual, "my.bucket", "http://my.bucket.s3.example.com/k"),
        ("https://s3.amazonaws.com", .virtual, "MyBucket", "https://s3.amazonaws.com/MyBucket/k"),
        ("https://s3.amazonaws.com", .virtual, "my_bucket", "https://s3.amazonaws.com/my_bucket/k"),
        ("https://s3.amazonaws.com", .virtual, "192.168.1.1", "https://s3.amazonaws.com/192.168.1.1/k"),
        ("http://127.0.0.1:9000", .virtual, "my-bucket", "http://127.0.0.1:9000/my-bucket/k"),
        // botocore 1.43.11 would write http://my.bucket.127.0.0.1:9000/k here; an IP cannot take a sub-domain.
        ("http://127.0.0.1:9000", .virtual, "my.bucket", "http://127.0.0.1:9000/my.bucket/k"),
        ("https://s3.amazonaws.com", .auto, "my-bucket", "https://my-bucket.s3.amazonaws.com/k"),
        ("http://s3.example.com", .auto, "my.bucket", "http://s3.example.com/my.bucket/k"),
        ("https://s3.amazonaws.com", .auto, "MyBucket", "https://s3.amazonaws.com/MyBucket/k"),
        ("http://127.0.0.1:9000", .auto, "my-bucket", "http://127.0.0.1:9000/my-bucket/k"),
        ("https://acct.r2.cloudflarestorage.com", .auto, "photos", "https://photos.acct.r2.cloudflarestorage.com/k"),
        ("https://s3.example.com:8443", .virtual, "b-1", "https://b-1.s3.example.com:8443/k"),
        ("https://s3.amazonaws.com", .path, "my-bucket", "https://s3.amazonaws.com/my-bucket/k"),
    ]

    @Test("addressing styles", arguments: addressingTable)
    func addressing(endpoint: String, style: AddressingStyle, bucket: String, expected: String) throws {
        let (presigned, inspection) = try Self.presignInspecting(
            Self.presigner(endpoint, region: "us-east-1", addressing: style),
            PresignRequest(method: "GET", bucket: bucket, key: "k", expires: 60), now: Self.fixtureTime)
        #expect(TestURL(presigned.url).base == expected)
        let host = expected.split(separator: "/")[1]
        #expect(inspection.canonicalRequest.contains("\nhost:\(host)\n"))
    }

    // MARK: signed headers and token

    @Test("signed header values are normalised and returned as the client must send them")
    func headerNormalisation() throws {
        let (presigned, inspection) = try Self.presignInspecting(
            Self.presigner(),
            PresignRequest(
                method: "PUT", bucket: "uploads", key: "k", expires: 600,
                signedHeaders: [("CONTENT-TYPE", "  multipart/form-data;\t  boundary=x  ")]),
            now: Self.fixtureTime)
        #expect(presigned.headers.count == 1)
        #expect(presigned.headers.first?.name == "Content-Type")
        #expect(presigned.headers.first?.value == "multipart/form-data; boundary=x")
        #expect(inspection.canonicalRequest.contains("\ncontent-type:multipart/form-data; boundary=x\nhost:"))
    }

    @Test("a session token is signed and sent, encoded, just before the signature")
    func sessionToken() throws {
        let credentials = Credentials(
            accessKeyId: "ASIAEXAMPLE", secretAccessKey: Secret("secret"), sessionToken: Secret("tok/en+with=chars"))
        let presigned = try Self.presigner(credentials: credentials).presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "k", expires: 600), now: Self.fixtureTime)
        let url = TestURL(presigned.url)
        #expect(url.names.suffix(2) == ["X-Amz-Security-Token", "X-Amz-Signature"])
        #expect(url.value("X-Amz-Security-Token") == "tok%2Fen%2Bwith%3Dchars")
    }

    // MARK: refusals

    @Test("expiry must be 1...604800 seconds", arguments: [Int.min, -1, 0, 604_801, Int.max])
    func expiryRefused(expires: Int) throws {
        let presigner = try Self.presigner()
        #expect(throws: SigV4Error.invalidExpiry(expires)) {
            try presigner.presign(PresignRequest(method: "PUT", bucket: "uploads", key: "k", expires: expires), now: 0)
        }
    }

    @Test("expiry bounds are accepted", arguments: [1, 604_800])
    func expiryAccepted(expires: Int) throws {
        let presigned = try Self.presigner().presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "k", expires: expires), now: Self.fixtureTime)
        #expect(TestURL(presigned.url).value("X-Amz-Expires") == String(expires))
    }

    @Test(
        "bad bucket names are refused",
        arguments: [
            "", "ab", "-abc", "abc-", ".abc", "abc.", "a/b", "a b", "버킷이름", "a%bc", String(repeating: "a", count: 256),
        ])
    func bucketRefused(bucket: String) throws {
        let presigner = try Self.presigner()
        #expect(throws: SigV4Error.invalidBucket(bucket)) {
            try presigner.presign(PresignRequest(method: "PUT", bucket: bucket, key: "k", expires: 60), now: 0)
        }
    }

    @Test(
        "keys that are empty, too long or hold dot segments are refused",
        arguments: [
            "", ".", "..", "./a", "../a", "a/.", "a/..", "a/./b", "a/../b", String(repeating: "k", count: 1025),
        ])
    func keyRefused(key: String) throws {
        let presigner = try Self.presigner()
        #expect(throws: SigV4Error.invalidKey(key)) {
            try presigner.presign(PresignRequest(method: "PUT", bucket: "uploads", key: key, expires: 60), now: 0)
        }
    }

    @Test(
        "unusual but valid keys are encoded, not refused",
        arguments: ["a..b", "...", ".a", "a.", "/a", "a//b", "a/.../b", String(repeating: "한", count: 341)])
    func keyAccepted(key: String) throws {
        let presigned = try Self.presigner().presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: key, expires: 60), now: Self.fixtureTime)
        #expect(
            presigned.url.hasPrefix(
                "https://s3.ap-northeast-2.amazonaws.com/uploads/" + URIEncoding.encode(key, keepingSlash: true) + "?"))
    }

    @Test("methods are upper-case tokens", arguments: ["put", "", "GET ", "PUT\r\n", "P-T"])
    func methodRefused(method: String) throws {
        let presigner = try Self.presigner()
        #expect(throws: SigV4Error.invalidMethod(method)) {
            try presigner.presign(PresignRequest(method: method, bucket: "uploads", key: "k", expires: 60), now: 0)
        }
    }

    /// Headers that cannot be signed into a URL.
    static let badHeaders: [[(String, String)]] = [
        [("host", "evil.example")], [("Host", "x")], [("x-amz-date", "20260101T000000Z")], [("Authorization", "x")],
        [("x-amz-security-token", "t")], [("content type", "x")], [("", "x")], [("content-type", "a\r\nx-evil: 1")],
        [("content-type", "image/jpeg\u{0}")], [("content-type", "imäge/jpeg")],
        [("Content-Type", "image/jpeg"), ("content-type", "image/png")],
    ]

    @Test("reserved, malformed or duplicated headers are refused", arguments: badHeaders)
    func headerRefused(headers: [(String, String)]) throws {
        let presigner = try Self.presigner()
        #expect(throws: SigV4Error.self) {
            try presigner.presign(
                PresignRequest(
                    method: "PUT", bucket: "uploads", key: "k", expires: 60,
                    signedHeaders: headers.map { (name: $0.0, value: $0.1) }),
                now: 0)
        }
    }

    @Test("reserved or duplicated query parameters are refused")
    func queryRefused() throws {
        let presigner = try Self.presigner()
        for query in [[("X-Amz-Signature", "0")], [("x-amz-expires", "1")], [("", "v")], [("a", "1"), ("a", "2")]] {
            #expect(throws: SigV4Error.self) {
                try presigner.presign(
                    PresignRequest(
                        method: "PUT", bucket: "uploads", key: "k", expires: 60,
                        query: query.map { (name: $0.0, value: $0.1) }),
                    now: 0)
            }
        }
    }

    @Test("bad configuration is refused at construction")
    func constructionRefused() throws {
        let endpoint = try Endpoint(parsing: "https://s3.amazonaws.com")
        #expect(throws: SigV4Error.invalidRegion("")) {
            try Presigner(credentials: Self.credentials, region: "", endpoint: endpoint, addressing: .path)
        }
        #expect(throws: SigV4Error.invalidRegion("US East")) {
            try Presigner(credentials: Self.credentials, region: "US East", endpoint: endpoint, addressing: .path)
        }
        #expect(throws: SigV4Error.invalidService("S3")) {
            try Presigner(
                credentials: Self.credentials, region: "us-east-1", service: "S3", endpoint: endpoint, addressing: .path
            )
        }
        for credentials in [
            Credentials(accessKeyId: "", secretAccessKey: Secret("s")),
            Credentials(accessKeyId: "AKIA/X", secretAccessKey: Secret("s")),
            Credentials(accessKeyId: "AKIA X", secretAccessKey: Secret("s")),
            Credentials(accessKeyId: "AKIA", secretAccessKey: Secret("")),
            Credentials(accessKeyId: "AKIA", secretAccessKey: Secret("s"), sessionToken: Secret("a\nb")),
        ] {
            #expect(throws: SigV4Error.self) {
                try Presigner(credentials: credentials, region: "us-east-1", endpoint: endpoint, addressing: .path)
            }
        }
    }

    // MARK: redaction

    @Test("printing never shows the signature, the token or the keys")
    func redaction() throws {
        let credentials = Credentials(
            accessKeyId: "ASIAEXAMPLE", secretAccessKey: Secret("SECRETKEYVALUE"), sessionToken: Secret("TOKENVALUE"))
        let presigner = try Self.presigner(credentials: credentials)
        let presigned = try presigner.presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "k", expires: 600), now: Self.fixtureTime)
        var dumped = ""
        dump(presigner, to: &dumped)
        dump(presigned, to: &dumped)
        dump(credentials, to: &dumped)
        let printed = "\(presigned) \(String(reflecting: presigned)) \(presigner) \(credentials) " + dumped
        #expect(printed.contains("https://s3.ap-northeast-2.amazonaws.com/uploads/k?<redacted>"))
        for secret in ["X-Amz-Signature", "TOKENVALUE", "SECRETKEYVALUE", "X-Amz-Credential"] {
            #expect(!printed.contains(secret), "\(secret) printed")
        }
    }

    // MARK: concurrency

    @Test("one presigner shared by many threads, across midnights, gives the serial results")
    func concurrentUse() async throws {
        let shared = try Self.presigner()
        // Times spread over four UTC days, so the day-key cache turns over while threads race.
        let midnight: Int64 = 1_795_910_400
        let times = (0..<400).map { midnight - 86_400 + Int64($0) * 997 % (4 * 86_400) }
        let requests = times.enumerated().map { index, _ in
            PresignRequest(method: "PUT", bucket: "uploads", key: "k/\(index)", expires: 600)
        }
        var expected = [String]()
        for (request, time) in zip(requests, times) {
            expected.append(try Self.presigner().presign(request, now: time).url)
        }
        let results = try await withThrowingTaskGroup(of: [(Int, String)].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var urls = [(Int, String)]()
                    for round in 0..<5 {
                        for index in stride(from: (worker + round) % 8, to: requests.count, by: 8) {
                            urls.append((index, try shared.presign(requests[index], now: times[index]).url))
                        }
                    }
                    return urls
                }
            }
            var all = [(Int, String)]()
            for try await urls in group { all.append(contentsOf: urls) }
            return all
        }
        #expect(results.count == 5 * requests.count)
        #expect(results.allSatisfy { expected[$0.0] == $0.1 })
    }
}
