import Config
import HTTPServer
import Records

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
            } else if !RequestValidation.isNumericId(chatroomId!) {
                errors.add("chatroomId", "chatroomId must be a number")
            }
        } else if let c = chatroomId, !c.isEmpty, !RequestValidation.isNumericId(c) {
            errors.add("chatroomId", "chatroomId must be a number")
        }
        guard errors.isEmpty, let type, let lowerExt else { throw .validation(errors) }

        let now = env.nowMillis()
        let uuid = env.newUUID()
        let values = KeyTemplate.Values(
            userId: caller.userId, uuid: uuid, epochMillis: now, ext: lowerExt, chatroomId: chatroomId)
        guard let key = type.key.render(values) else { throw PresignService.unrenderableKey }
        let permanent = type.permanentKey?.render(values)
        let expires = type.config.expiresSeconds
        let presigned = try PresignService.presignPut(
            pathStyle, bucket: bucket, key: key, expires: expires, signedHeaders: [], nowMillis: now)
        let expiresAt = PresignService.expiresAtMillis(presigned, nowMillis: now)
        // An intent the writer could not keep would make a URL that can never be confirmed: refuse.
        // HEAD answers GET's headers without the URL, so it records no intent.
        let kept =
            req.head.method == .HEAD
            || intents.enqueue(
                UploadIntent(
                    ownerId: caller.userId, imageKey: key, objectKey: key, permanentKey: permanent,
                    type: type.config.name,
                    contentType: nil, allowedContentTypes: type.config.contentTypes, maxBytes: type.config.maxBytes,
                    createdAtMs: now, expiresAtMs: expiresAt))
        guard kept else { throw .intentsBacklogged }
        return PresignService.issued(presigned, key: key, imageKey: nil, expiresAt: expiresAt)
    }

    /// The 422 of a key template that these values cannot fill.
    static let unrenderableKey = APIError.validation(
        ["type": "the key for this type cannot be built from these values"])
}
