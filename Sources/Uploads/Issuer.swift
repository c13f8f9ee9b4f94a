import Config
import Crypto
import Records
import SigV4
import Synchronization

/// Issuing upload URLs: a server-made key of a type, a client-chosen key, and a browser upload's single
/// PUT or POST. Each signs through a `RotatingPresigner` and returns the URL as a `Pending` holding its
/// intent: the front door answers it only once `IntentKeeper.handOff` has stored the intent.
public final class Issuer: Sendable {
    /// The signers of issued URLs.
    public struct Signers: Sendable {
        /// Client P's URLs: always path-style (its client takes the key from the path).
        public let pathStyle: RotatingPresigner
        /// Every other URL: the configured addressing.
        public let configured: RotatingPresigner

        /// Both signers.
        public init(pathStyle: RotatingPresigner, configured: RotatingPresigner) {
            self.pathStyle = pathStyle
            self.configured = configured
        }
    }

    /// Which signer signs a URL.
    public enum Signing: Sendable {
        /// Path-style (client P's URLs).
        case pathStyle
        /// The configured addressing.
        case configured
    }

    /// The types and their rules.
    public let catalog: UploadCatalog
    /// The signers.
    public let signers: Signers
    /// The bucket every URL is for.
    public let bucket: String
    let intents: IntentKeeper
    let ownership: ImageKeyOwnership
    let env: UploadEnvironment
    /// Whether URLs for client-chosen keys sign `If-None-Match: *`.
    let signIfNoneMatch: Bool
    /// What storage checks of a declared digest: only those headers are signed (`digestHeaders`).
    public let storeChecksums: StoreChecksums
    /// Counts the keys drawn: the `rand_a` bits of their UUIDs (`keyUUID`).
    private let keysDrawn = Atomic<Int>(0)

    /// An issuer for `bucket`.
    public init(
        catalog: UploadCatalog, signers: Signers, bucket: String, intents: IntentKeeper, ownership: ImageKeyOwnership,
        env: UploadEnvironment, signIfNoneMatch: Bool, storeChecksums: StoreChecksums = .preset(.custom)
    ) {
        self.catalog = catalog
        self.signers = signers
        self.bucket = bucket
        self.intents = intents
        self.ownership = ownership
        self.env = env
        self.signIfNoneMatch = signIfNoneMatch
        self.storeChecksums = storeChecksums
    }

    /// A PUT for a new key of the upload's type, signed for `host` only (and the declared size and the
    /// digests storage checks, when declared), valid the type's lifetime (or `expires`), to be answered
    /// once its intent is stored; nothing is stored when `recordsIntent` is false (a HEAD, which answers
    /// no URL).
    public func issue(
        _ upload: NewUpload, owner: String, signing: Signing, expires: Int? = nil, recordsIntent: Bool
    ) throws(UploadError) -> Pending<IssuedURL> {
        let type = upload.type
        let now = env.nowMillis()
        let lifetime = expires ?? type.config.expiresSeconds
        let uuid = keyUUID(millis: now + Int64(lifetime) * 1000)
        let values = KeyTemplate.Values(
            userId: owner, uuid: uuid, epochMillis: now, ext: upload.ext,
            chatroomId: type.chatroomId(sent: upload.chatroomId, env: env))
        let (key, permanent) = try type.keys(values)
        let declared = upload.declared
        let presigned = try presignPut(
            signing == .pathStyle ? signers.pathStyle : signers.configured, key: key, expires: lifetime,
            signedHeaders: declared == .none
                ? [] : putHeaders(contentType: nil, declared: declared, ifNoneMatch: false),
            nowMillis: now)
        let issued = IssuedURL(presigned: presigned, key: key, imageKey: nil)
        guard recordsIntent else { return Pending(kept: issued) }
        return Pending(
            issued,
            intent: UploadIntent(
                ownerId: owner, imageKey: key, objectKey: key, permanentKey: permanent, type: type.config.name,
                contentType: nil, allowedContentTypes: type.config.contentTypes,
                maxBytes: declared.size ?? type.config.maxBytes, createdAtMs: now, expiresAtMs: issued.expiresAtMs,
                freshKey: Self.makesFreshKey(type, uuid: uuid), declaredSize: declared.size,
                checksumSHA256: declared.checksumSHA256, contentMD5: declared.contentMD5),
            keeper: intents)
    }

    /// The headers a PUT signs, in one array built in place (the issue routes' hot path): `content-type`
    /// when given; the `content-length` a declared size signs (storage then takes exactly that many
    /// bytes); the digest headers storage checks (`digestHeaders`); `if-none-match: *` when `ifNoneMatch`.
    func putHeaders(contentType: String?, declared: DeclaredContent, ifNoneMatch: Bool) -> [(
        name: String, value: String
    )] {
        var headers: [(name: String, value: String)] = []
        headers.reserveCapacity(6)
        if let contentType { headers.append(("content-type", contentType)) }
        if let size = declared.size { headers.append(("content-length", String(size))) }
        appendDigestHeaders(declared, to: &headers)
        if ifNoneMatch { headers.append(("if-none-match", "*")) }
        return headers
    }

    /// The digest headers a URL signs for `declared`: each digest storage checks (`storeChecksums`), so
    /// that a body other than the declared one fails at the PUT (`BadDigest`); a digest storage ignores
    /// is not signed (it would guarantee nothing) and is proven at confirmation instead. A store that
    /// takes one checksum per request gets the SHA-256 alone. `x-amz-checksum-sha256` goes with
    /// `x-amz-sdk-checksum-algorithm: SHA256`, as the AWS SDKs sign it.
    public func digestHeaders(_ declared: DeclaredContent) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        appendDigestHeaders(declared, to: &headers)
        return headers
    }

    /// Appends `digestHeaders(declared)` to `headers`.
    func appendDigestHeaders(_ declared: DeclaredContent, to headers: inout [(name: String, value: String)]) {
        let signsSHA256 = declared.checksumSHA256 != nil && storeChecksums.sha256
        if let md5 = declared.contentMD5, storeChecksums.contentMD5, !(storeChecksums.onePerRequest && signsSHA256) {
            headers.append(("content-md5", md5))
        }
        if signsSHA256, let sha256 = declared.checksumSHA256 {
            headers.append(("x-amz-checksum-sha256", sha256))
            headers.append(("x-amz-sdk-checksum-algorithm", "SHA256"))
        }
    }

    /// On a worker (the store decides who holds the key): a PUT for a client-chosen key, refused when the
    /// key is recorded or issued to someone else; signs `content-type` (and the declared size and the
    /// digests storage checks), to be answered once its intent is stored.
    public func issue(_ upload: KeyedUpload, owner: String) throws(UploadError) -> Pending<IssuedURL> {
        switch try ownership.use(of: upload.imageKey, by: owner) {
        case .free: break
        case .recorded: throw .keyAlreadyRecorded
        case .issuedToOther: throw .keyInUse
        }
        let type = upload.type
        let now = env.nowMillis()
        let values = KeyTemplate.Values(
            userId: owner, uuid: upload.imageKey, epochMillis: now,
            ext: UploadRules.fileExtension(for: upload.contentType), chatroomId: type.chatroomId(sent: nil, env: env),
            imageKey: upload.imageKey)
        let (key, permanent) = try type.keys(values)
        let declared = upload.declared
        let presigned = try presignPut(
            signers.configured, key: key, expires: upload.expiresSeconds ?? type.config.expiresSeconds,
            signedHeaders: putHeaders(
                contentType: upload.contentType, declared: declared, ifNoneMatch: signIfNoneMatch),
            nowMillis: now)
        let issued = IssuedURL(presigned: presigned, key: key, imageKey: upload.imageKey)
        return Pending(
            issued,
            intent: UploadIntent(
                ownerId: owner, imageKey: upload.imageKey, objectKey: key, permanentKey: permanent,
                type: type.config.name, contentType: upload.contentType, allowedContentTypes: [upload.contentType],
                maxBytes: declared.size ?? type.config.maxBytes, createdAtMs: now, expiresAtMs: issued.expiresAtMs,
                declaredSize: declared.size, checksumSHA256: declared.checksumSHA256, contentMD5: declared.contentMD5),
            keeper: intents)
    }

    /// The UUID of a new key: a random UUID (`UploadEnvironment.newUUID`) made time-ordered (version 7,
    /// `UUIDv7.stamping`) with `millis` as its time and a count of the keys drawn as its `rand_a`, so
    /// that keys drawn one after another sort in that order; the random UUID itself when it is no
    /// canonical UUID (a test's stand-in). The issue routes pass the URL's expiry to the millisecond (the
    /// time of issue plus the lifetime: `IssuedURL.expiresAtMs` is that time rounded down to the second
    /// unless the credentials shorten the URL), so SQLite keeps the intent's row in expiry order with no
    /// index entry of its own (docs/records.md, "SQLite intents"); a browser upload, whose lifetime is
    /// set after its key, passes the time of issue.
    func keyUUID(millis: Int64) -> String {
        let random = env.newUUID()
        let count = keysDrawn.wrappingAdd(1, ordering: .relaxed).oldValue
        return UUIDv7.stamping(random, millis: millis, sequence: count) ?? random
    }

    /// Whether the keys `type` renders with `uuid`, a UUID just drawn from the server's random source,
    /// are fresh (`UploadIntent.freshKey`: no intent or record can have them yet, since 122 random bits
    /// do not repeat): the type's template puts the UUID in every key, and the UUID is a whole one (at
    /// least 32 characters, so that a short stand-in of a test's UUID source never counts). Decided
    /// from the template, without searching the key (the issue route's hot path).
    static func makesFreshKey(_ type: UploadType, uuid: String) -> Bool {
        type.makesFreshKeys && uuid.utf8.count >= 32
    }

    /// A presigned PUT of `key` with `signer`'s current credentials, `signedHeaders` signed in, valid
    /// `expires` seconds from `nowMillis` or less when the credentials expire sooner (the URL's
    /// `expiresAt` says which); `.credentialsUnavailable` when they have too little life left for a URL.
    func presignPut(
        _ signer: RotatingPresigner, key: String, expires: Int, signedHeaders: [(name: String, value: String)],
        nowMillis: Int64
    ) throws(UploadError) -> PresignedURL {
        do {
            return try signer.presign(
                PresignRequest(method: "PUT", bucket: bucket, key: key, expires: expires, signedHeaders: signedHeaders),
                now: nowMillis / 1000)
        } catch {
            throw Self.signingError(error)
        }
    }

    /// A signer's refusal as the lifecycle's error.
    static func signingError(_ error: SigV4Error) -> UploadError {
        if case .credentialsExpiring(let left) = error { return .credentialsUnavailable(secondsLeft: left) }
        return .signingFailed
    }
}
