import Config
import Crypto
import HTTPServer
import JSON
import Records

extension PresignService {
    // MARK: - POST /presigned-url {"contentType", "imageKey"[, "type", "size"]}  (client B)

    /// On a worker: refuses a key that is recorded or issued to someone else (the store decides, so
    /// this cannot run on the event loop), else signs.
    func checkKeyAndSign(_ v: BodyRequest, caller: Caller) throws(APIError) -> Response {
        try issueForKey(v, caller: caller).response
    }

    /// On a worker: the issue of a client-chosen key (`checkKeyAndSign` and the compatibility routes):
    /// refused when the key is recorded or issued to someone else, else signed and its intent queued.
    func issueForKey(_ v: BodyRequest, caller: Caller) throws(APIError) -> Issued {
        let use: ImageKeyOwnership.Use
        do {
            use = try ownership.use(of: v.imageKey, by: caller.userId)
        } catch {
            throw .storeUnavailable
        }
        switch use {
        case .free: return try sign(v, caller: caller)
        case .recorded: throw .keyAlreadyRecorded
        case .issuedToOther: throw .keyInUse
        }
    }

    /// A validated client B request.
    struct BodyRequest: Sendable {
        /// The upload type (`type`, else `presign.defaultPostType`).
        let type: UploadType
        /// The content type to sign, lower case.
        let contentType: String
        /// The image key, a lower-case UUID.
        let imageKey: String
        /// The declared size, signed as `content-length` and kept as the intent's limit.
        let size: Int64?
        /// The body's MD5, base64, signed as `content-md5` (storage refuses a body that does not match).
        var contentMD5: String? = nil
        /// The body's SHA-256, base64, signed as `x-amz-checksum-sha256`.
        var checksumSHA256: String? = nil
        /// The URL lifetime, when not the type's (a compatibility route's `expiresSeconds`).
        var expiresSeconds: Int? = nil
    }

    /// Where a body's members are: the native names, or a compatibility route's.
    struct BodyFields: Sendable {
        /// The member with the content type.
        var contentType = "contentType"
        /// The member with the image key.
        var imageKey = "imageKey"
        /// The member naming the type; nil: the type is `fixedType`.
        var type: String? = "type"
        /// The type when no member names one (nil: `presign.defaultPostType`).
        var fixedType: String? = nil
        /// Whether `size`, `contentMD5` and `checksumSHA256` are read (the native API's extras).
        var extras = true

        /// The native API's names.
        static let native = BodyFields()
    }

    /// Checks a client B body on the event loop: its type, content type, image key, size and digests.
    func validateBody(_ req: Request) throws(APIError) -> BodyRequest {
        try validateBody(RequestValidation.jsonObject(req, maxDepth: 16, maxBytes: maxJsonBodyBytes), fields: .native)
    }

    /// Checks a parsed body whose members are named by `fields`.
    func validateBody(_ object: JSONObject, fields: BodyFields) throws(APIError) -> BodyRequest {
        var errors = FieldErrors()
        var typeName = fields.fixedType ?? defaultPostType
        if let typeField = fields.type, let t = object[typeField] {
            if let s = t.stringValue { typeName = s } else { errors.add(typeField, "\(typeField) must be a string") }
        }
        let type = uploadType(named: typeName)
        if type == nil {
            errors.add(fields.type ?? "type", "unknown type")
        } else if let type, type.config.requiresChatroomId {
            // This body has no chatroomId, and the type's rule is `required`: GET /presigned-url takes one.
            errors.add(
                fields.type ?? "type", "type \(typeName) requires a chatroomId: issue it with GET /presigned-url")
        }

        var contentType: String?
        let ctField = fields.contentType
        switch object[ctField] {
        case nil: errors.add(ctField, "\(ctField) is required")
        case .some(let v):
            if let s = v.stringValue {
                let lower = s.lowercased()
                if let type, !type.config.contentTypes.contains(lower) {
                    errors.add(
                        ctField, "\(ctField) must be one of " + type.config.contentTypes.joined(separator: ", "))
                } else {
                    contentType = lower
                }
            } else {
                errors.add(ctField, "\(ctField) must be a string")
            }
        }
        let imageKey = RequestValidation.requiredString(
            object, fields.imageKey, invalid: "\(fields.imageKey) must be a UUID", errors: &errors,
            canonical: RequestValidation.canonicalUUID)
        guard fields.extras else {
            guard errors.isEmpty, let type, let contentType, let imageKey else { throw .validation(errors) }
            return BodyRequest(type: type, contentType: contentType, imageKey: imageKey, size: nil)
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
        guard errors.isEmpty, let type, let contentType, let imageKey else { throw .validation(errors) }
        return BodyRequest(
            type: type, contentType: contentType, imageKey: imageKey, size: size, contentMD5: contentMD5,
            checksumSHA256: checksumSHA256)
    }

    /// An optional digest member: absent or null is nil; otherwise it must be the canonical padded base64
    /// of `bytes` bytes, else a field error.
    static func digestField(
        _ value: JSONValue?, name: String, bytes: Int, what: String, errors: inout FieldErrors
    ) -> String? {
        guard let value, !value.isNull else { return nil }
        guard let text = value.stringValue, Base64.decode(text)?.count == bytes else {
            errors.add(name, "\(name) must be the base64 of \(what) (\(bytes) bytes)")
            return nil
        }
        return text
    }

    /// Signs a validated client B request and records its intent.
    func sign(_ v: BodyRequest, caller: Caller) throws(APIError) -> Issued {
        let (type, contentType, imageKey, size) = (v.type, v.contentType, v.imageKey, v.size)
        let now = env.nowMillis()
        let values = KeyTemplate.Values(
            userId: caller.userId, uuid: imageKey, epochMillis: now,
            ext: PresignService.extensionFor(contentType), chatroomId: type.chatroomId(sent: nil, env: env),
            imageKey: imageKey)
        guard let key = type.key.render(values) else { throw PresignService.unrenderableKey }
        let permanent = type.permanentKey?.render(values)
        var signed: [(name: String, value: String)] = [("content-type", contentType)]
        if let size { signed.append(("content-length", String(size))) }
        if let md5 = v.contentMD5 { signed.append(("content-md5", md5)) }
        if let sha256 = v.checksumSHA256 { signed.append(("x-amz-checksum-sha256", sha256)) }
        if signIfNoneMatch { signed.append(("if-none-match", "*")) }
        let expires = v.expiresSeconds ?? type.config.expiresSeconds
        let presigned = try PresignService.presignPut(
            configured, bucket: bucket, key: key, expires: expires, signedHeaders: signed, nowMillis: now)
        let expiresAt = PresignService.expiresAtMillis(presigned, nowMillis: now)
        // An intent the writer could not keep would make a URL that can never be confirmed: refuse.
        let kept = intents.enqueue(
            UploadIntent(
                ownerId: caller.userId, imageKey: imageKey, objectKey: key, permanentKey: permanent,
                type: type.config.name, contentType: contentType, allowedContentTypes: [contentType],
                maxBytes: size ?? type.config.maxBytes, createdAtMs: now, expiresAtMs: expiresAt))
        guard kept else { throw .intentsBacklogged }
        return Issued(presigned: presigned, key: key, imageKey: imageKey, expiresAt: expiresAt)
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
