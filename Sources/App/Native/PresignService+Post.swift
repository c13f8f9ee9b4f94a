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

    /// Parses a client B body on the event loop (its type, content type, image key, size and digests:
    /// `DeclaredFields`) and checks it against its type; every problem is reported at once.
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
        let declared = DeclaredFields.read(object, errors: &errors)
        let (upload, problems) = issuer.catalog.checkKeyed(
            KeyedRequest(typeName: typeName, contentType: contentType, imageKey: imageKey, declared: declared))
        guard errors.isEmpty, problems.isEmpty, let upload else {
            throw .validation(
                FieldErrors(
                    parsed: errors, problems: problems, fields: PresignService.bodyFields,
                    order: PresignService.bodyMembers))
        }
        return upload
    }
}
