import Config
import HTTPServer
import Records
import SigV4

extension PresignService {
    // MARK: - GET /presigned-url?type=&ext=[&chatroomId=]  (client P)

    /// Validates the query, signs a path-style PUT for a new key of the type and queues its intent.
    func issueForQuery(_ req: Request, caller: Caller) throws(APIError) -> Response {
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
        guard wellFormed else { throw .malformedQuery }
        let (type, lowerExt) = try checkedType(typeName, ext: ext, chatroomId: chatroomId)
        // HEAD answers GET's headers without the URL, so it records no intent.
        return try issueNew(
            type, ext: lowerExt, chatroomId: chatroomId, caller: caller, signer: pathStyle,
            recordsIntent: req.head.method != .HEAD
        ).response
    }

    /// Where a request names its type and extension: the query's `type` and `ext`, or a compatibility
    /// route's members.
    struct TypeFields: Sendable {
        /// The member naming the type.
        var type = "type"
        /// The member with the extension.
        var ext = "ext"

        /// The native query's names.
        static let native = TypeFields()
    }

    /// The type and lower-case extension of a request, checked (422 with every problem): the type
    /// exists and has extensions, the extension is one of them, a chatroomId is given when the type
    /// needs one and is a number.
    func checkedType(_ typeName: String?, ext: String?, chatroomId: String?, fields: TypeFields = .native)
        throws(APIError) -> (UploadType, String)
    {
        var errors = FieldErrors()
        let type = typeName.flatMap { uploadType(named: $0) }
        if typeName == nil || typeName!.isEmpty {
            errors.add(fields.type, "\(fields.type) is required")
        } else if type == nil || type!.config.extensions.isEmpty {
            errors.add(fields.type, "unknown type")
        }
        let lowerExt = ext?.lowercased()
        if lowerExt == nil || lowerExt!.isEmpty {
            errors.add(fields.ext, "\(fields.ext) is required")
        } else if let type, !type.config.extensions.contains(lowerExt!) {
            errors.add(fields.ext, "\(fields.ext) must be one of " + type.config.extensions.joined(separator: ", "))
        }
        // A chatroomId that is sent must be a number; a type whose rule is `required` needs one, the others
        // put a server-made UUID in the segment (client P's app never sends one).
        if let c = chatroomId, !c.isEmpty {
            if !RequestValidation.isNumericId(c) { errors.add("chatroomId", "chatroomId must be a number") }
        } else if let type, type.config.requiresChatroomId {
            errors.add("chatroomId", "chatroomId is required for type \(type.config.name)")
        }
        guard errors.isEmpty, let type, let lowerExt else { throw .validation(errors) }
        return (type, lowerExt)
    }

    /// Signs a PUT for a new key of `type` with `signer` (host only) and queues its intent when
    /// `recordsIntent`; `expires` overrides the type's lifetime.
    func issueNew(
        _ type: UploadType, ext lowerExt: String, chatroomId: String?, caller: Caller, signer: RotatingPresigner,
        expires expiresOverride: Int? = nil, recordsIntent: Bool
    ) throws(APIError) -> Issued {
        let now = env.nowMillis()
        let uuid = env.newUUID()
        let values = KeyTemplate.Values(
            userId: caller.userId, uuid: uuid, epochMillis: now, ext: lowerExt,
            chatroomId: type.chatroomId(sent: chatroomId, env: env))
        guard let key = type.key.render(values) else { throw PresignService.unrenderableKey }
        let permanent = type.permanentKey?.render(values)
        let expires = expiresOverride ?? type.config.expiresSeconds
        let presigned = try PresignService.presignPut(
            signer, bucket: bucket, key: key, expires: expires, signedHeaders: [], nowMillis: now)
        let expiresAt = PresignService.expiresAtMillis(presigned, nowMillis: now)
        // An intent the writer could not keep would make a URL that can never be confirmed: refuse.
        let kept =
            !recordsIntent
            || intents.enqueue(
                UploadIntent(
                    ownerId: caller.userId, imageKey: key, objectKey: key, permanentKey: permanent,
                    type: type.config.name,
                    contentType: nil, allowedContentTypes: type.config.contentTypes, maxBytes: type.config.maxBytes,
                    createdAtMs: now, expiresAtMs: expiresAt))
        guard kept else { throw .intentsBacklogged }
        return Issued(presigned: presigned, key: key, imageKey: nil, expiresAt: expiresAt)
    }

    /// The 422 of a key template that these values cannot fill.
    static let unrenderableKey = APIError.validation(
        ["type": "the key for this type cannot be built from these values"])
}
