import Crypto

/// Presigns S3 URLs with SigV4 query-string authentication (`UNSIGNED-PAYLOAD`), and signs the
/// server's own requests with an `Authorization` header (`Presigner+HeaderSigning.swift`).
///
/// Pure: no I/O, no clock (time comes in as epoch seconds). Thread safety: one instance may be
/// shared by every event-loop thread; the only mutable state is the per-day signing key, behind a
/// `Mutex` that is held just long enough to copy a prepared HMAC key. The credentials are fixed for
/// the instance's life: when they rotate, make a new one with `withCredentials(_:)` (it is cheap: one
/// HMAC key preparation) and swap it in through a `RotatingPresigner`, so that every URL is signed
/// wholly by one set (access key, session token and signing key never mix).
public final class Presigner: Sendable, CustomReflectable {
    /// The region in the credential scope, e.g. `ap-northeast-2`, `kr-standard`, `auto` (R2).
    public let region: String
    /// The service in the credential scope, `s3`.
    public let service: String
    /// Where the URLs point.
    public let endpoint: Endpoint
    /// Path-style, virtual-hosted or automatic.
    public let addressing: AddressingStyle
    /// The access key ID (public: it is in every URL).
    public let accessKeyId: String
    /// When the credentials expire, in epoch seconds; nil for long-term keys.
    public let credentialsExpiration: Int64?

    /// The session token of temporary credentials.
    public let sessionToken: Secret?
    /// The per-day signing keys.
    let keyCache: SigningKeyCache
    /// `https://` or `http://`.
    let schemePrefix: [UInt8]
    /// `host[:port]`.
    let authority: [UInt8]
    /// The access key ID, URI-encoded, then `%2F`: the start of `X-Amz-Credential`.
    let credentialPrefix: [UInt8]
    /// `/region/service/aws4_request`: the credential scope after the day.
    let scopeSuffix: [UInt8]
    /// `%2Fregion%2Fservice%2Faws4_request`: the same, URI-encoded for the query.
    let encodedScopeSuffix: [UInt8]
    /// The session token, URI-encoded for the query.
    let encodedSessionToken: [UInt8]?

    /// A presigner for one set of credentials, region, service, endpoint and addressing style.
    public init(
        credentials: Credentials, region: String, service: String = "s3", endpoint: Endpoint,
        addressing: AddressingStyle
    ) throws(SigV4Error) {
        guard Self.isScopeComponent(region) else { throw .invalidRegion(region) }
        guard Self.isScopeComponent(service) else { throw .invalidService(service) }
        let accessKeyId = credentials.accessKeyId
        guard !accessKeyId.isEmpty, accessKeyId.utf8.count <= 128,
            accessKeyId.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e && $0 != UInt8(ascii: "/") })
        else { throw .invalidCredentials("the access key ID must be 1 to 128 visible ASCII characters, no /") }
        guard !credentials.secretAccessKey.isEmpty else {
            throw .invalidCredentials("the secret access key is empty")
        }
        if let token = credentials.sessionToken {
            guard !token.isEmpty, token.withUnsafeBytes({ $0.allSatisfy { $0 >= 0x21 && $0 <= 0x7e } }) else {
                throw .invalidCredentials("a session token is visible ASCII characters")
            }
        }
        self.region = region
        self.service = service
        self.endpoint = endpoint
        self.addressing = addressing
        self.accessKeyId = accessKeyId
        self.credentialsExpiration = credentials.expiration
        self.sessionToken = credentials.sessionToken
        self.keyCache = SigningKeyCache(secret: credentials.secretAccessKey, region: region, service: service)
        self.schemePrefix = Array("\(endpoint.scheme)://".utf8)
        self.authority = Array(endpoint.authority.utf8)
        var credentialPrefix = [UInt8]()
        URIEncoding.append(accessKeyId, keepingSlash: false, to: &credentialPrefix)
        credentialPrefix.write(ascii: "%2F")
        self.credentialPrefix = credentialPrefix
        self.scopeSuffix = Array("/\(region)/\(service)/aws4_request".utf8)
        self.encodedScopeSuffix = Array("%2F\(region)%2F\(service)%2Faws4_request".utf8)
        self.encodedSessionToken = credentials.sessionToken.map { token in
            var encoded = [UInt8]()
            URIEncoding.append(token.unredacted, keepingSlash: false, to: &encoded)
            return encoded
        }
    }

    /// A presigner with the same region, service, endpoint and addressing for other credentials
    /// (rotated temporary credentials); its signing keys are derived afresh from their secret.
    public func withCredentials(_ credentials: Credentials) throws(SigV4Error) -> Presigner {
        try Presigner(
            credentials: credentials, region: region, service: service, endpoint: endpoint, addressing: addressing)
    }

    /// The lifetime to give a URL signed at `now` (epoch seconds): `requested`, shortened so that the
    /// URL expires no later than these credentials; nil when they have expired.
    public func lifetime(clamping requested: Int, now: Int64) -> Int? {
        Credentials.lifetime(clamping: requested, expiration: credentialsExpiration, now: now)
    }

    /// A mirror with no children: the token and keys never show in `dump`.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .class) }

    /// Lower-case letters, digits and `-`, 1 to 64 bytes: the region and service rule.
    private static func isScopeComponent(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64
            && text.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-")
            }
    }

    /// Throws unless `method` is 1 to 16 upper-case ASCII letters.
    static func validateMethod(_ method: String) throws(SigV4Error) {
        guard !method.isEmpty, method.utf8.count <= 16,
            method.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
        else { throw .invalidMethod(method) }
    }

    /// Whether `bucket` goes into the host name, per the addressing style.
    ///
    /// As botocore does, `.virtual` falls back to path-style when the bucket cannot be a host name
    /// (upper case, `_`, too long, an IPv4 look-alike), when the endpoint is an IP address, and for
    /// a dotted bucket over https (the endpoint's wildcard certificate would not match). `.auto` also
    /// keeps dotted buckets path-style over http.
    public func usesVirtualHosting(_ bucket: String) -> Bool {
        switch addressing {
        case .path:
            return false
        case .virtual:
            return endpoint.acceptsVirtualHosting
                && BucketName.isVirtualHostable(bucket, allowingDots: endpoint.scheme == "http")
        case .auto:
            return endpoint.acceptsVirtualHosting && BucketName.isVirtualHostable(bucket, allowingDots: false)
        }
    }

    /// SigV4 task 1, the canonical URI: `/bucket/key` (path-style) or `/key` (virtual-hosted),
    /// each byte URI-encoded once with `/` kept; `/bucket` alone for a bucket-level request.
    func appendPath(bucket: String, key: String, virtual: Bool, to output: inout some ByteSink) {
        output.write(UInt8(ascii: "/"))
        if !virtual {
            URIEncoding.append(bucket, keepingSlash: false, to: &output)
            if key.isEmpty { return }
            output.write(UInt8(ascii: "/"))
        }
        URIEncoding.append(key, keepingSlash: true, to: &output)
    }

    /// Writes the host: `authority`, or `bucket.authority` when virtual-hosted.
    func appendHost(bucket: String, virtual: Bool, to output: inout some ByteSink) {
        if virtual {
            output.write(utf8: bucket)
            output.write(UInt8(ascii: "."))
        }
        output.write(authority)
    }

    /// Writes `AKID%2F<day>%2F<region>%2F<service>%2Faws4_request`: the encoded `X-Amz-Credential`.
    func appendEncodedCredential(day date: AmzDate, to output: inout some ByteSink) {
        output.write(credentialPrefix)
        date.appendDay(to: &output)
        output.write(encodedScopeSuffix)
    }

    /// SigV4 task 2: `AWS4-HMAC-SHA256\n<amz date>\n<scope>\n<hex SHA-256 of the canonical request>`.
    func appendStringToSign(date: AmzDate, canonicalRequestHash: SHA256Digest, to output: inout some ByteSink) {
        output.write(ascii: "AWS4-HMAC-SHA256\n")
        date.appendTimestamp(to: &output)
        output.write(UInt8(ascii: "\n"))
        date.appendDay(to: &output)
        output.write(scopeSuffix)
        output.write(UInt8(ascii: "\n"))
        output.write(hex: canonicalRequestHash)
    }

    /// The most bytes `appendStringToSign` writes.
    var stringToSignMaximumCount: Int { 17 + 16 + 1 + 8 + scopeSuffix.count + 1 + 64 }

    /// SigV4 tasks 2 to 4 on a writer holding the canonical request: writes the string to sign after
    /// it and returns the signature. `inspect` sees both texts (tests and diagnostics).
    func sign(canonicalRequestIn output: inout ByteWriter, date: AmzDate, inspect: ((String, String) -> Void)?)
        -> SHA256Digest
    {
        let end = output.count
        let hash = SHA256.hash(UnsafeRawBufferPointer(output.written()))
        appendStringToSign(date: date, canonicalRequestHash: hash, to: &output)
        let signature = keyCache.key(for: date).authenticate(UnsafeRawBufferPointer(output.written(from: end)))
        if let inspect {
            inspect(
                String(decoding: UnsafeBufferPointer(rebasing: output.written()[..<end]), as: UTF8.self),
                String(decoding: output.written(from: end), as: UTF8.self))
        }
        return signature
    }

    /// Encoded query pairs, checked: no `X-Amz-` names (those are the signer's), no duplicates.
    static func encodeQuery(_ query: [(name: String, value: String)]) throws(SigV4Error) -> [(
        name: [UInt8], value: [UInt8]
    )] {
        var encoded = [(name: [UInt8], value: [UInt8])]()
        encoded.reserveCapacity(query.count)
        for (name, value) in query {
            guard !name.isEmpty else { throw .invalidQuery(name: name, reason: "empty name") }
            guard !hasAmzPrefix(name) else {
                throw .invalidQuery(name: name, reason: "X-Amz- parameters are set by the signer")
            }
            var pair = (name: [UInt8](), value: [UInt8]())
            pair.name.reserveCapacity(URIEncoding.maximumEncodedCount(name))
            pair.value.reserveCapacity(URIEncoding.maximumEncodedCount(value))
            URIEncoding.append(name, keepingSlash: false, to: &pair.name)
            URIEncoding.append(value, keepingSlash: false, to: &pair.value)
            guard !encoded.contains(where: { $0.name == pair.name }) else {
                throw .invalidQuery(name: name, reason: "given twice")
            }
            encoded.append(pair)
        }
        return encoded
    }

    /// Whether `name` starts with `x-amz-` in any case (ASCII case folding: no other character
    /// lower-cases to one of these letters).
    static func hasAmzPrefix(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        for expected in "x-amz-".utf8 {
            guard let b = bytes.next() else { return false }
            let lower = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
            if lower != expected { return false }
        }
        return true
    }
}
