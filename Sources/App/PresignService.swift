import Config
import Crypto
import HTTP1
import HTTPServer
import JSON
import Records
import SigV4

/// The issue endpoints: `GET /presigned-url` (client P) and `POST /presigned-url` (client B).
///
/// Both run on the event loop (presigning is pure computation); the upload intent each one records is
/// queued to the intent writer, which stores it in batches off the request path.
public final class PresignService: Sendable {
    /// One upload type with its parsed templates (a class: requests share it by reference, without
    /// copying its strings and arrays).
    final class UploadType: Sendable {
        let config: UploadTypeConfig
        let key: KeyTemplate
        let permanentKey: KeyTemplate?

        /// A type from its configuration and its parsed templates.
        init(config: UploadTypeConfig, key: KeyTemplate, permanentKey: KeyTemplate?) {
            self.config = config
            self.key = key
            self.permanentKey = permanentKey
        }
    }

    /// The configured types, in configuration order.
    private let types: [UploadType]
    private let defaultPostType: String
    private let pathStyle: Presigner
    private let configured: Presigner
    private let bucket: String
    private let gate: Gate
    private let intents: any IntentSink
    private let env: AppEnvironment
    private let maxJsonBodyBytes: Int
    private let signIfNoneMatch: Bool
    private let keyUse: @Sendable (_ imageKey: String, _ owner: String) throws -> KeyUse

    /// Whether a client-chosen image key may get a new upload URL.
    enum KeyUse: Sendable {
        /// Never issued, or issued to this caller and not recorded: a new URL may be issued.
        case free
        /// Already recorded: a new URL would let the confirmed object be overwritten.
        case recorded
        /// Issued to another user and not yet expired.
        case issuedToOther
    }

    /// Builds the service; `pathStyle` signs client P's URLs (always path-style), `configured` the others.
    init(
        config: PresigndConfig, pathStyle: Presigner, configured: Presigner, gate: Gate,
        intents: any IntentSink, env: AppEnvironment,
        keyUse: @escaping @Sendable (_ imageKey: String, _ owner: String) throws -> KeyUse = { _, _ in .free }
    ) throws(AppError) {
        self.keyUse = keyUse
        var types: [UploadType] = []
        for t in config.types {
            guard let k = KeyTemplate(t.keyTemplate) else { throw .configuration("types.\(t.name).keyTemplate") }
            var p: KeyTemplate?
            if !t.permanentKeyTemplate.isEmpty {
                guard let pk = KeyTemplate(t.permanentKeyTemplate) else {
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
        self.bucket = config.s3.bucket
        self.gate = gate
        self.intents = intents
        self.env = env
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
        self.signIfNoneMatch = config.presign.signIfNoneMatch
    }

    /// The routes of this service.
    func routes() -> [Route] {
        let get: Handler = { [self] req in .respond(issueForQuery(req)) }
        let post: Handler = { [self] req in issueForBody(req) }
        return [
            Route(.GET, "/presigned-url", handler: get),
            Route(.GET, "/v1/storage/presigned-url", handler: get),
            Route(.POST, "/presigned-url", maxBodyBytes: maxJsonBodyBytes, handler: post),
            Route(.POST, "/v1/storage/presigned-url", maxBodyBytes: maxJsonBodyBytes, handler: post),
        ]
    }

    // MARK: - GET /presigned-url?type=&ext=[&chatroomId=]  (client P)

    func issueForQuery(_ req: Request) -> Response {
        gate.serve(req, .issue) { caller in issueForQuery(req, caller: caller) }
    }

    private func issueForQuery(_ req: Request, caller: Caller) -> Response {
        var typeName: String?
        var ext: String?
        var chatroomId: String?
        let wellFormed = req.forEachQueryItem { n, v in
            switch n {
            case "type": typeName = v
            case "ext": ext = v
            case "chatroomId": chatroomId = v
            default: break
            }
        }
        guard wellFormed else {
            return APIError.error(400, "MALFORMED_QUERY", "the query string is not valid percent-encoded UTF-8")
        }
        var errors = FieldErrors()
        let type = typeName.flatMap { uploadType(named: $0) }
        if typeName == nil || typeName!.isEmpty {
            errors.add("type", "type is required")
        } else if type == nil || type!.config.extensions.isEmpty {
            errors.add("type", "unknown type")
        }
        let lowerExt = ext?.lowercased()
        if lowerExt == nil || lowerExt!.isEmpty {
            errors.add("ext", "ext is required")
        } else if let type, !type.config.extensions.contains(lowerExt!) {
            errors.add("ext", "ext must be one of " + type.config.extensions.joined(separator: ", "))
        }
        if let type, type.config.requiresChatroomId {
            if chatroomId == nil || chatroomId!.isEmpty {
                errors.add("chatroomId", "chatroomId is required for type \(type.config.name)")
            } else if !PresignService.isNumericId(chatroomId!) {
                errors.add("chatroomId", "chatroomId must be a number")
            }
        } else if let c = chatroomId, !c.isEmpty, !PresignService.isNumericId(c) {
            errors.add("chatroomId", "chatroomId must be a number")
        }
        guard errors.isEmpty, let type, let lowerExt else { return APIError.unprocessable(errors.list) }

        let now = env.nowMillis()
        let uuid = env.newUUID()
        let values = KeyTemplate.Values(
            userId: caller.userId, uuid: uuid, epochMillis: now, ext: lowerExt, chatroomId: chatroomId)
        guard let key = type.key.render(values) else {
            return APIError.unprocessable([("type", "the key for this type cannot be built from these values")])
        }
        let permanent = type.permanentKey?.render(values)
        let expires = type.config.expiresSeconds
        let presigned: PresignedURL
        do {
            presigned = try pathStyle.presign(
                PresignRequest(method: "PUT", bucket: bucket, key: key, expires: expires, signedHeaders: []),
                now: now / 1000)
        } catch {
            return APIError.error(500, "SIGNING_FAILED", "the URL could not be signed")
        }
        let expiresAt = now + Int64(expires) * 1000
        intents.enqueue(
            UploadIntent(
                ownerId: caller.userId, imageKey: key, objectKey: key, permanentKey: permanent, type: type.config.name,
                contentType: nil, allowedContentTypes: type.config.contentTypes, maxBytes: type.config.maxBytes,
                createdAtMs: now, expiresAtMs: expiresAt))
        return PresignService.issued(presigned, key: key, imageKey: nil, expiresAt: expiresAt)
    }

    // MARK: - POST /presigned-url {"contentType", "imageKey"[, "type", "size"]}  (client B)

    /// Validates on the event loop, then checks the key against the store on a worker (a client-chosen
    /// key that is recorded, or issued to someone else, must not get a new URL) and signs there.
    func issueForBody(_ req: Request) -> HandlerResult {
        // Not `gate.serve`: its wrapping of the worker's closure would cost this route a second closure
        // allocation per request; the closure below marks its response with the caller itself.
        let caller: Caller
        switch gate.admit(req, .issue) {
        case .success(let c): caller = c
        case .failure(let f): return .respond(f.response)
        }
        switch validateBody(req, caller: caller) {
        case .failure(let f):
            var refusal = f.response
            refusal.userId = caller.userId
            return .respond(refusal)
        case .success(let v):
            return .blocking { [self] in
                var response = checkKeyAndSign(v)
                response.userId = v.caller.userId
                return response
            }
        }
    }

    /// On a worker: refuses a key that is recorded or issued to someone else, else signs.
    private func checkKeyAndSign(_ v: BodyRequest) -> Response {
        do {
            switch try keyUse(v.imageKey, v.caller.userId) {
            case .free: break
            case .recorded:
                return APIError.error(409, "KEY_ALREADY_RECORDED", "this imageKey is already recorded")
            case .issuedToOther:
                return APIError.error(409, "KEY_IN_USE", "this imageKey was issued to another user")
            }
        } catch {
            return APIError.error(503, "STORE_UNAVAILABLE", "the records store is not available")
        }
        return sign(v)
    }

    /// A validated client B request.
    struct BodyRequest: Sendable {
        let caller: Caller
        let type: UploadType
        let contentType: String
        let imageKey: String
        let size: Int64?
        /// The body's MD5, base64, signed as `content-md5` (storage refuses a body that does not match).
        var contentMD5: String? = nil
        /// The body's SHA-256, base64, signed as `x-amz-checksum-sha256`.
        var checksumSHA256: String? = nil
    }

    func validateBody(_ req: Request, caller: Caller) -> Result<BodyRequest, ResolveFailure> {
        if let ct = req.header("Content-Type"), !PresignService.isJSONContentType(ct) {
            return .failure(
                ResolveFailure(
                    response: APIError.error(415, "UNSUPPORTED_MEDIA_TYPE", "send the body as application/json")))
        }
        let doc: JSONValue
        do {
            doc = try JSONParser(limits: .init(maxDepth: 16, maxBytes: maxJsonBodyBytes)).parse(req.body)
        } catch {
            return .failure(
                ResolveFailure(
                    response: APIError.error(400, "MALFORMED_JSON", "the body is not valid JSON: \(error.message)")))
        }
        guard let object = doc.objectValue else {
            return .failure(
                ResolveFailure(response: APIError.unprocessable([("body", "the body must be a JSON object")])))
        }
        var errors = FieldErrors()
        var typeName = defaultPostType
        if let t = object["type"] {
            if let s = t.stringValue { typeName = s } else { errors.add("type", "type must be a string") }
        }
        let type = uploadType(named: typeName)
        if type == nil { errors.add("type", "unknown type") }

        var contentType: String?
        switch object["contentType"] {
        case nil: errors.add("contentType", "contentType is required")
        case .some(let v):
            if let s = v.stringValue {
                let lower = s.lowercased()
                if let type, !type.config.contentTypes.contains(lower) {
                    errors.add(
                        "contentType", "contentType must be one of " + type.config.contentTypes.joined(separator: ", "))
                } else {
                    contentType = lower
                }
            } else {
                errors.add("contentType", "contentType must be a string")
            }
        }
        var imageKey: String?
        switch object["imageKey"] {
        case nil: errors.add("imageKey", "imageKey is required")
        case .some(let v):
            if let s = v.stringValue, let u = PresignService.canonicalUUID(s) {
                imageKey = u
            } else {
                errors.add("imageKey", "imageKey must be a UUID")
            }
        }
        var size: Int64?
        if let v = object["size"], !v.isNull {
            if let n = v.int64Value, n >= 1 {
                if let type, n > type.config.maxBytes {
                    errors.add("size", "size must be at most \(type.config.maxBytes)")
                } else {
                    size = n
                }
            } else {
                errors.add("size", "size must be a positive integer")
            }
        }
        let contentMD5 = PresignService.digestField(
            object["contentMD5"], name: "contentMD5", bytes: 16, what: "an MD5 digest", errors: &errors)
        let checksumSHA256 = PresignService.digestField(
            object["checksumSHA256"], name: "checksumSHA256", bytes: 32, what: "a SHA-256 digest", errors: &errors)
        guard errors.isEmpty, let type, let contentType, let imageKey else {
            return .failure(ResolveFailure(response: APIError.unprocessable(errors.list)))
        }
        return .success(
            BodyRequest(
                caller: caller, type: type, contentType: contentType, imageKey: imageKey, size: size,
                contentMD5: contentMD5, checksumSHA256: checksumSHA256))
    }

    /// An optional digest member: absent or null is nil; otherwise it must be the canonical padded base64
    /// of `bytes` bytes, else a field error.
    static func digestField(
        _ value: JSONValue?, name: String, bytes: Int, what: String, errors: inout FieldErrors
    ) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue, Base64Digest.isDigest(text, bytes: bytes) else {
            errors.add(name, "\(name) must be the base64 of \(what) (\(bytes) bytes)")
            return nil
        }
        return text
    }

    /// Signs a validated client B request and records its intent.
    func sign(_ v: BodyRequest) -> Response {
        let (caller, type, contentType, imageKey, size) = (v.caller, v.type, v.contentType, v.imageKey, v.size)
        let now = env.nowMillis()
        let values = KeyTemplate.Values(
            userId: caller.userId, uuid: imageKey, epochMillis: now,
            ext: PresignService.extensionFor(contentType), imageKey: imageKey)
        guard let key = type.key.render(values) else {
            return APIError.unprocessable([("type", "the key for this type cannot be built from these values")])
        }
        let permanent = type.permanentKey?.render(values)
        var signed: [(name: String, value: String)] = [("content-type", contentType)]
        if let size { signed.append(("content-length", String(size))) }
        if let md5 = v.contentMD5 { signed.append(("content-md5", md5)) }
        if let sha256 = v.checksumSHA256 { signed.append(("x-amz-checksum-sha256", sha256)) }
        if signIfNoneMatch { signed.append(("if-none-match", "*")) }
        let expires = type.config.expiresSeconds
        let presigned: PresignedURL
        do {
            presigned = try configured.presign(
                PresignRequest(method: "PUT", bucket: bucket, key: key, expires: expires, signedHeaders: signed),
                now: now / 1000)
        } catch {
            return APIError.error(500, "SIGNING_FAILED", "the URL could not be signed")
        }
        let expiresAt = now + Int64(expires) * 1000
        intents.enqueue(
            UploadIntent(
                ownerId: caller.userId, imageKey: imageKey, objectKey: key, permanentKey: permanent,
                type: type.config.name, contentType: contentType, allowedContentTypes: [contentType],
                maxBytes: size ?? type.config.maxBytes, createdAtMs: now, expiresAtMs: expiresAt))
        return PresignService.issued(presigned, key: key, imageKey: imageKey, expiresAt: expiresAt)
    }

    // MARK: - Helpers

    /// The type called `name`: a linear search, since there are a handful of types and comparing short
    /// names costs less than hashing one.
    private func uploadType(named name: String) -> UploadType? {
        for t in types where t.config.name == name { return t }
        return nil
    }

    /// The 200 answer of both issue routes: client P reads `presignedUrl`, client B `signedUrl` (present
    /// when `imageKey` is given); both get the key, the method, the headers to send and the expiry.
    ///
    /// The body is written by fragments into one buffer sized in advance: the member names are literals,
    /// only the URL, the keys and the header values are escaped.
    static func issued(_ presigned: PresignedURL, key: String, imageKey: String?, expiresAt: Int64) -> Response {
        let url = presigned.url
        var capacity = 160 + url.utf8.count + key.utf8.count
        if let imageKey { capacity += url.utf8.count + imageKey.utf8.count + 32 }
        for h in presigned.headers { capacity += h.name.utf8.count + h.value.utf8.count + 6 }
        var body: [UInt8] = []
        body.reserveCapacity(capacity)
        if imageKey != nil {
            JSONWriter.appendLiteral(#"{"signedUrl":"#, to: &body)
            JSONWriter.appendQuoted(url, to: &body)
            JSONWriter.appendLiteral(#","presignedUrl":"#, to: &body)
        } else {
            JSONWriter.appendLiteral(#"{"presignedUrl":"#, to: &body)
        }
        JSONWriter.appendQuoted(url, to: &body)
        JSONWriter.appendLiteral(#","key":"#, to: &body)
        JSONWriter.appendQuoted(key, to: &body)
        if let imageKey {
            JSONWriter.appendLiteral(#","imageKey":"#, to: &body)
            JSONWriter.appendQuoted(imageKey, to: &body)
        }
        JSONWriter.appendLiteral(#","method":"PUT","headers":{"#, to: &body)
        for (index, h) in presigned.headers.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONWriter.appendQuoted(h.name, to: &body)
            body.append(UInt8(ascii: ":"))
            JSONWriter.appendQuoted(h.value, to: &body)
        }
        JSONWriter.appendLiteral(#"},"expiresAt":"#, to: &body)
        Timestamp.appendQuotedISO8601(millis: expiresAt, to: &body)
        body.append(UInt8(ascii: "}"))
        return Response(status: 200, headers: APIError.jsonNoStoreHeaders, body: body)
    }

    /// `[0-9]{1,19}`.
    static func isNumericId(_ s: String) -> Bool {
        let u = s.utf8
        return !u.isEmpty && u.count <= 19 && u.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// `application/json`, with optional parameters.
    static func isJSONContentType(_ s: String) -> Bool {
        let media = s.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces() } ?? ""
        return media.lowercased() == "application/json"
    }

    /// A UUID (8-4-4-4-12 hex digits, either case) in lower case, or nil.
    static func canonicalUUID(_ s: String) -> String? {
        let u = Array(s.utf8)
        guard u.count == 36 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, b) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return nil }
                out.append(b)
                continue
            }
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): out.append(b)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): out.append(b + 32)
            default: return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The file extension used in keys for a content type.
    static func extensionFor(_ contentType: String) -> String {
        switch contentType {
        case "image/jpeg": return "jpg"
        case "image/png": return "png"
        case "image/heic": return "heic"
        case "image/webp": return "webp"
        case "image/gif": return "gif"
        default:
            let sub = contentType.split(separator: "/").last.map(String.init) ?? "bin"
            return sub.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) && !sub.isEmpty ? sub : "bin"
        }
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
