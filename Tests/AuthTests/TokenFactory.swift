import Auth
import Crypto

/// How a test token is signed.
enum TestSigner: Sendable {
    /// HMAC-SHA256 with these key bytes.
    case hmac([UInt8])
    /// RS256 with this RSA key.
    case rs256(PrivateKey)
    /// ES256 with this EC key.
    case es256(PrivateKey)

    /// The signature of `input`.
    func sign(_ input: [UInt8]) throws -> [UInt8] {
        switch self {
        case .hmac(let key): return HMACKey(key: key).authenticate(input).bytes
        case .rs256(let key): return try key.sign(input, algorithm: .rsaPKCS1v15SHA256)
        case .es256(let key): return try key.sign(input, algorithm: .ecdsaP256SHA256)
        }
    }
}

/// Builds compact JWS tokens from JSON texts (written by hand, so broken JSON can be tested too).
enum TokenFactory {
    /// `base64url(header).base64url(payload).base64url(signature)`.
    static func token(header: String, payload: String, signer: TestSigner) throws -> String {
        try signed(Base64.encodeURL(header) + "." + Base64.encodeURL(payload), signer: signer)
    }

    /// `signingInput` (already encoded segments, possibly malformed) followed by `.` and its signature.
    static func signed(_ signingInput: String, signer: TestSigner) throws -> String {
        signingInput + "." + Base64.encodeURL(try signer.sign(Array(signingInput.utf8)))
    }

    /// A JSON object text of `members` in order; values are JSON texts.
    static func object(_ members: KeyValuePairs<String, String>) -> String {
        "{" + members.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
    }
}

/// One algorithm's signer, keys and a matching authenticator, for tests run once per algorithm.
struct AlgorithmFixture: Sendable {
    /// The fixed current time of these tests: 2023-11-14T22:13:20Z.
    static let now: Int64 = 1_700_000_000
    /// The HS256 secret (40 bytes).
    static let hs256Secret = "test-hs256-secret-that-is-40-bytes-long!"

    /// The algorithm.
    let algorithm: JWTAlgorithm
    /// Signs tokens the authenticator accepts.
    let signer: TestSigner
    /// Signs with another key of the same type (a forger's).
    let otherSigner: TestSigner
    /// The verification keys.
    let keys: KeySet

    /// The fixture for `algorithm`.
    init(_ algorithm: JWTAlgorithm) throws {
        let material = try ThrowawayKeys.shared.get()
        self.algorithm = algorithm
        switch algorithm {
        case .hs256:
            signer = .hmac(Array(Self.hs256Secret.utf8))
            otherSigner = .hmac(Array("another-secret-that-is-also-40-bytes-long".utf8))
            keys = try KeySet.load(pemFiles: [], jwksFile: nil, hs256Secret: Secret(Self.hs256Secret))
        case .rs256:
            signer = .rs256(material.rsa1)
            otherSigner = .rs256(material.rsa2)
            keys = try KeySet(keys: KeySet.keys(pem: material.rsa1PublicPEM, path: "rsa1.pub.pem"))
        case .es256:
            signer = .es256(material.ec1)
            otherSigner = .es256(material.ec2)
            keys = try KeySet(keys: KeySet.keys(pem: material.ec1PublicPEM, path: "ec1.pub.pem"))
        }
    }

    /// Settings that allow all three algorithms, check issuer and audience, and keep the defaults otherwise.
    static func settings(
        issuer: String? = "https://issuer.example", audience: String? = "presignd", leeway: Int64 = 60,
        userClaim: String = "sub", maxTokenBytes: Int = 8192, apiKeys: [APIKey] = []
    ) -> AuthSettings {
        AuthSettings(
            algorithms: [.hs256, .rs256, .es256], issuer: issuer, audience: audience, leewaySeconds: leeway,
            userClaim: userClaim, maxTokenBytes: maxTokenBytes, apiKeys: apiKeys)
    }

    /// An authenticator over these keys.
    func authenticator(_ settings: AuthSettings = AlgorithmFixture.settings()) -> Authenticator {
        Authenticator(configuration: settings, keys: keys)
    }

    /// `{"alg":"<algorithm>","typ":"JWT"}`.
    var header: String { TokenFactory.object(["alg": "\"\(algorithm.rawValue)\"", "typ": "\"JWT\""]) }

    /// Valid claims for user `user-42`, with `changes` replacing or adding members (value `nil` removes one).
    static func claims(_ changes: [String: String?] = [:]) -> String {
        var members: [(String, String)] = [
            ("iss", "\"https://issuer.example\""), ("aud", "\"presignd\""), ("sub", "\"user-42\""),
            ("iat", "\(now)"), ("exp", "\(now + 300)"),
        ]
        for (key, value) in changes.sorted(by: { $0.key < $1.key }) {
            if let index = members.firstIndex(where: { $0.0 == key }) {
                if let value { members[index].1 = value } else { members.remove(at: index) }
            } else if let value {
                members.append((key, value))
            }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A token with this fixture's header and `payload`, signed by `signer`.
    func token(_ payload: String = AlgorithmFixture.claims(), header: String? = nil) throws -> String {
        try TokenFactory.token(header: header ?? self.header, payload: payload, signer: signer)
    }

    /// What the authenticator says about `token` sent as `Authorization: Bearer <token>`.
    func outcome(_ token: String, settings: AuthSettings = AlgorithmFixture.settings(), now: Int64 = now)
        -> Result<Principal, AuthFailure>
    {
        authenticator(settings).authenticate(authorization: "Bearer " + token, apiKey: nil, now: now)
    }
}

/// The failure reason of `result`, or nil when it succeeded.
func reason(_ result: Result<Principal, AuthFailure>) -> AuthFailure.Reason? {
    if case .failure(let failure) = result { return failure.reason }
    return nil
}

/// The principal of a successful `result`, or nil.
func principal(_ result: Result<Principal, AuthFailure>) -> Principal? {
    if case .success(let principal) = result { return principal }
    return nil
}
