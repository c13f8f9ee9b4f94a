import Config
import HTTPServer
import Records
import SigV4

/// The issue endpoints: `GET /presigned-url` (client P) and `POST /presigned-url` (client B).
///
/// Both validate on the event loop. Client P's URL is signed there too (presigning is pure
/// computation); client B's key is checked against the store first, so it is signed on a worker. The
/// upload intent each one records is queued to the intent writer, which stores it in batches off the
/// request path. The routes are in `PresignService+Get.swift`, `PresignService+Post.swift`, and their
/// shared answer in `PresignService+Response.swift`.
public final class PresignService: Sendable {
    /// One upload type with its parsed templates (a class: requests share it by reference, without
    /// copying its strings and arrays).
    final class UploadType: Sendable {
        let config: UploadTypeConfig
        let key: KeyTemplate
        let permanentKey: KeyTemplate?
        /// Whether a request without `chatroomId` gets a server-made UUID in that segment (the rule is
        /// `server-made` and a template uses `{chatroomId}`).
        let makesChatroomId: Bool

        /// A type from its configuration and its parsed templates.
        init(config: UploadTypeConfig, key: KeyTemplate, permanentKey: KeyTemplate?) {
            self.config = config
            self.key = key
            self.permanentKey = permanentKey
            self.makesChatroomId =
                config.chatroomId == .serverMade
                && (key.uses(.chatroomId) || permanentKey?.uses(.chatroomId) == true)
        }

        /// The `{chatroomId}` of one request: the one it sent (checked already), else a new UUID when the
        /// type makes one, else none.
        func chatroomId(sent: String?, env: AppEnvironment) -> String? {
            if let sent, !sent.isEmpty { return sent }
            return makesChatroomId ? env.newUUID() : nil
        }
    }

    /// The configured types, in configuration order.
    private let types: [UploadType]
    /// The type of a client B request that names none.
    let defaultPostType: String
    /// Signs client P's URLs (always path-style) with the current credentials.
    let pathStyle: RotatingPresigner
    /// Signs client B's URLs (configured addressing) with the current credentials.
    let configured: RotatingPresigner
    /// Whether client P's GET routes are served (`presign.serveClientP`).
    let servesClientP: Bool
    /// The bucket every URL is for.
    let bucket: String
    private let gate: Gate
    /// Where issued URLs' intents are queued.
    let intents: any IntentSink
    /// The clock and the source of UUIDs.
    let env: AppEnvironment
    /// The largest JSON body accepted.
    let maxJsonBodyBytes: Int
    /// Whether client B's URLs sign `If-None-Match: *`.
    let signIfNoneMatch: Bool
    /// Who holds a client-chosen key (client B may not be issued a recorded key, or another user's).
    let ownership: ImageKeyOwnership

    /// Builds the service; `pathStyle` signs client P's URLs (always path-style), `configured` the others.
    init(
        config: PresigndConfig, pathStyle: RotatingPresigner, configured: RotatingPresigner, gate: Gate,
        intents: any IntentSink, ownership: ImageKeyOwnership, env: AppEnvironment
    ) throws(AppError) {
        self.ownership = ownership
        var types: [UploadType] = []
        for t in config.types {
            guard let k = KeyTemplate(t.keyTemplate) else { throw .configuration("types.\(t.name).keyTemplate") }
            var p: KeyTemplate?
            if let text = t.permanentKeyTemplate {
                guard let pk = KeyTemplate(text) else {
                    throw .configuration("types.\(t.name).permanentKeyTemplate")
                }
                p = pk
            }
            types.append(UploadType(config: t, key: k, permanentKey: p))
        }
        self.types = types
        self.defaultPostType = config.presign.defaultPostType
        self.pathStyle = pathStyle
        self.configured = configured
        self.servesClientP = config.presign.serveClientP
        self.bucket = config.s3.bucket
        self.gate = gate
        self.intents = intents
        self.env = env
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
        self.signIfNoneMatch = config.presign.signIfNoneMatch
    }

    /// The routes of this service.
    func routes() -> [Route] {
        let get = gate.route(.issue) { [self] (caller, request) throws(APIError) in
            try issueForQuery(request, caller: caller)
        }
        let post = gate.route(
            .issue, validate: { [self] (caller, request) throws(APIError) in try validateBody(request) },
            perform: { [self] caller, body in try checkKeyAndSign(body, caller: caller) })
        let clientP = [
            Route(.GET, "/presigned-url", handler: get),
            Route(.GET, "/v1/storage/presigned-url", handler: get),
        ]
        return (servesClientP ? clientP : []) + [
            Route(.POST, "/presigned-url", maxBodyBytes: maxJsonBodyBytes, handler: post),
            Route(.POST, "/v1/storage/presigned-url", maxBodyBytes: maxJsonBodyBytes, handler: post),
        ]
    }

    /// The type called `name`: a linear search, since there are a handful of types and comparing short
    /// names costs less than hashing one.
    func uploadType(named name: String) -> UploadType? {
        for t in types where t.config.name == name { return t }
        return nil
    }

    /// A presigned PUT of `key` with `signer`'s current credentials, `signedHeaders` signed in, valid
    /// `expires` seconds from `nowMillis` or less when the credentials expire sooner (the URL's
    /// `expiresAt` says which); 503 when they have too little life left for a URL.
    static func presignPut(
        _ signer: RotatingPresigner, bucket: String, key: String, expires: Int,
        signedHeaders: [(name: String, value: String)], nowMillis: Int64
    ) throws(APIError) -> PresignedURL {
        do {
            return try signer.presign(
                PresignRequest(method: "PUT", bucket: bucket, key: key, expires: expires, signedHeaders: signedHeaders),
                now: nowMillis / 1000)
        } catch {
            if case .credentialsExpiring(let left) = error { throw .credentialsUnavailable(secondsLeft: left) }
            throw .signingFailed
        }
    }

    /// When a URL issued at `nowMillis` stops working, in milliseconds: its `X-Amz-Date` (whole
    /// seconds) plus the lifetime it was signed with (`expires`, or less when the credentials
    /// shortened it), which is what storage checks.
    static func expiresAtMillis(_ presigned: PresignedURL, nowMillis: Int64) -> Int64 {
        presigned.expiresAt * 1000
    }
}
