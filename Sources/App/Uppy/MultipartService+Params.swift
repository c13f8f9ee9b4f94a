import HTTPServer
import JSON
import SigV4
import Uploads

extension MultipartService {
    // MARK: - GET /s3/params?filename=&type=&metadata[k]=v[&size=&checksumSHA256=&contentMD5=]

    /// A single-request browser upload: a presigned PUT (`uppy.paramsMethod = put`, the default:
    /// its 200 carries the `ETag` header on every store; it signs the declared size and the digests
    /// storage checks, the headers the answer lists) or a presigned POST whose policy pins the
    /// key, the content type, `content-length-range` 0...the type's limit and `success_action_status`
    /// 201, fields in Companion's order (`Issuer.issueBrowser`). Its intent is recorded under the key, so
    /// `POST /images` with `imageKey` = the key confirms it. Signed on the event loop (pure computation),
    /// answered once the intent is stored.
    func params(_ request: Request, caller: Caller) throws(CompanionError) -> Pending<Response> {
        var filename: String?
        var contentType: String?
        var given: [(key: String, value: String?)] = []
        var declared = DeclaredInput.none
        let wellFormed = request.forEachQueryItem { name, value in
            switch name {
            case "filename": filename = value
            case "type": contentType = value
            case "size", "checksumSHA256", "contentMD5": _ = DeclaredFields.take(name, value, into: &declared)
            default:
                // `metadata[k]=v`, as Uppy writes file metadata into the query.
                if name.hasPrefix("metadata["), name.hasSuffix("]"), name.utf8.count >= 10 {
                    given.append((String(name.dropFirst(9).dropLast()), value))
                }
            }
        }
        guard wellFormed else { throw .malformedQuery }
        let metadata: MultipartRules.Metadata
        switch MultipartRules.metadata(given) {
        case .success(let m): metadata = m
        case .failure(let refusal): throw refusal
        }
        let object = try newObject(
            filename: filename, contentType: contentType, metadata: metadata, declared: declared, caller: caller)
        let lifetime = Issuer.browserLifetime(object, expires: expires)
        // HEAD answers GET's headers without the URL, so it records no intent.
        let pending = try lifecycle { () throws(UploadError) in
            try issuer.issueBrowser(
                object, form: paramsForm, lifetime: lifetime, owner: caller.userId,
                recordsIntent: request.head.method != .HEAD)
        }
        return pending.map { upload in answer(upload, object: object, lifetime: lifetime) }
    }

    /// The answer of `/params`: the method, URL, headers or form fields, lifetime and key.
    func answer(_ upload: BrowserUpload, object: PlannedObject, lifetime: Int) -> Response {
        var w = JSONWriter(reservingCapacity: 2048)
        w.beginObject()
        switch upload {
        case .put(let url):
            w.key("method")
            w.string("PUT")
            w.key("url")
            w.string(url.url)
            w.key("headers")
            w.beginObject()
            for header in url.headers {
                // Companion's answer names the content type in lower case, as Uppy reads it.
                w.key(header.name == "Content-Type" ? "content-type" : header.name)
                w.string(header.value)
            }
            w.endObject()
            // No form to send, but Uppy reads the key and the bucket from `fields`, as Companion's
            // answer always has them.
            w.key("fields")
            w.beginObject()
            w.key("key")
            w.string(object.key)
            w.key("bucket")
            w.string(issuer.bucket)
            w.endObject()
        case .post(let post):
            w.key("method")
            w.string("POST")
            w.key("url")
            w.string(post.url)
            w.key("fields")
            w.beginObject()
            for (name, value) in MultipartService.companionFields(post.fields, bucket: issuer.bucket) {
                w.key(name)
                w.string(value)
            }
            w.endObject()
        }
        w.key("expires")
        w.int(lifetime)
        w.key("key")
        w.string(object.key)
        w.endObject()
        return .companion(w.bytes)
    }

    /// The form fields as Companion's answer (`@aws-sdk/s3-presigned-post`) has them: the signed
    /// fields with a `bucket` field (the policy's `bucket` condition; Uppy reads it) before the
    /// credential fields, in `companionOrder`, each named in Companion's letter case
    /// (`companionName`; S3 reads form field names case-insensitively).
    static func companionFields(_ fields: [(name: String, value: String)], bucket: String) -> [(
        name: String, value: String
    )] {
        companionOrder(fields + [("bucket", bucket)]).map { (companionName($0.name), $0.value) }
    }

    /// A form field's name as Companion's answer spells it: `content-type` (its own field),
    /// `X-Amz-Algorithm`, `X-Amz-Credential`, `X-Amz-Date`, `X-Amz-Security-Token`, `X-Amz-Signature`
    /// (the SDK's query parameter names) and `Policy`; any other name as given.
    static func companionName(_ name: String) -> String {
        switch name.lowercased() {
        case "content-type": return "content-type"
        case "x-amz-algorithm": return "X-Amz-Algorithm"
        case "x-amz-credential": return "X-Amz-Credential"
        case "x-amz-date": return "X-Amz-Date"
        case "x-amz-security-token": return "X-Amz-Security-Token"
        case "x-amz-signature": return "X-Amz-Signature"
        case "policy": return "Policy"
        default: return name
        }
    }

    /// The form fields in the order Companion's (`@aws-sdk/s3-presigned-post`) answer lists them:
    /// `success_action_status`, `Content-Type`, `bucket`, the `x-amz-*` credential fields, `key`,
    /// `policy`, `x-amz-signature`.
    static func companionOrder(_ fields: [(name: String, value: String)]) -> [(name: String, value: String)] {
        let order = [
            "success_action_status", "content-type", "bucket", "x-amz-algorithm", "x-amz-credential", "x-amz-date",
            "x-amz-security-token", "key", "policy", "x-amz-signature",
        ]
        func rank(_ name: String) -> Int { order.firstIndex(of: name.lowercased()) ?? order.count }
        return fields.enumerated().sorted { a, b in
            let (ra, rb) = (rank(a.element.name), rank(b.element.name))
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)
    }
}
