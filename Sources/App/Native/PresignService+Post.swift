import Crypto
import HTTPServer
import JSON
import Uploads

extension PresignService {
    // MARK: - POST /presigned-url {"contentType", "imageKey"[, "type", "size", "contentMD5", "checksumSHA256"]}  (client B)

    /// On a worker: the issue of a client-chosen key, refused when the key is recorded or issued to
    /// someone else (the store decides, so this cannot run on the event loop); the answer, to be given
    /// once its intent is stored.
    func issueForKey(_ upload: KeyedUpload, caller: Caller) throws(APIError) -> Pending<Response> {
        do throws(UploadError) {
            return try issuer.issue(upload, owner: caller.userId).map(PresignService.issued)
        } catch {
            throw APIError(error)
        }
    }

    /// The members of a client B body, in the order their errors are reported.
    static let bodyMembers = ["type", "contentType", "imageKey", "size", "contentMD5", "checksumSHA256"]

    /// The field names of a client B body's problems (it has no chatroomId).
    static let bodyFields = ProblemFields(chatroomId: nil)

    /// Parses a client B body on the event loop (its type, content type, image key, size and digests)
    /// and checks it against its type; every problem is reported at once.
    func validateBody(_ req: Request) throws(APIError) -> KeyedUpload {
        let object = try RequestValidation.jsonObject(req, maxDepth: 16, maxBytes: maxJsonBodyBytes)
        var errors = FieldErrors()
        var typeName = defaultPostType
        if let t = object["type"] {
            if let s = t.stringValue { typeName = s } else { errors.add("type", "type must be a string") }
        }
        var contentType: String?
        switch object["contentType"] {
        case nil: errors.add("contentType", "contentType is required")
        case .some(let v):
            if let s = v.stringValue {
                contentType = s
            } else {
                errors.add("contentType", "contentType must be a string")
            }
        }
        let imageKey = RequestValidation.requiredString(
            object, "imageKey", invalid: "imageKey must be a UUID", errors: &errors,
            canonical: RequestValidation.canonicalUUID)
        var size: Int64?
        if let v = object["size"], !v.isNull {
            if let n = v.int64Value, n >= 1 { size = n } else { errors.add("size", "size must be a positive integer") }
        }
        let contentMD5 = PresignService.digestField(
            object["contentMD5"], name: "contentMD5", bytes: 16, what: "an MD5 digest", errors: &errors)
        let checksumSHA256 = PresignService.digestField(
            object["checksumSHA256"], name: "checksumSHA256", bytes: 32, what: "a SHA-256 digest", errors: &errors)
        let (upload, problems) = issuer.catalog.checkKeyed(
            KeyedRequest(
                typeName: typeName, contentType: contentType, imageKey: imageKey, size: size, contentMD5: contentMD5,
                checksumSHA256: checksumSHA256))
        guard errors.isEmpty, problems.isEmpty, let upload else {
            throw .validation(
                FieldErrors(
                    parsed: errors, problems: problems, fields: PresignService.bodyFields,
                    order: PresignService.bodyMembers))
        }
        return upload
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
}
