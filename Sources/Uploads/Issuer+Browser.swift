import Config
import Records
import SigV4

/// Where a browser upload's object goes and what it must be (Uppy's routes), before anything is signed
/// or created.
public struct PlannedObject: Sendable {
    /// The type.
    public let type: UploadType
    /// The upload key.
    public let key: String
    /// The key a confirmation promotes it to.
    public let permanentKey: String?
    /// The media type it must have.
    public let contentType: String
    /// What the record keeps of the request's metadata, carried by the intent.
    public let metadataJSON: String?
    /// Whether `key` holds the UUID just drawn for it (`Issuer.makesFreshKey`): no intent or record can
    /// have it yet, nor a key made from it.
    public var freshKey = false
    /// What the request declared of the object (size, digests), checked.
    public var declared = DeclaredContent.none
}

/// The form of a single-request browser upload.
public enum BrowserForm: Sendable {
    /// A presigned PUT signing `content-type`.
    case put
    /// A presigned POST whose policy pins the key, the content type, `content-length-range` 0...the
    /// type's limit and `success_action_status` 201.
    case post
}

/// A signed single-request browser upload.
public enum BrowserUpload: Sendable {
    /// A presigned PUT.
    case put(PresignedURL)
    /// A presigned POST (URL and form fields).
    case post(PresignedPost)
}

extension Issuer {
    /// The object of a browser upload: the request checked against its type (`UploadCatalog.checkObject`),
    /// its keys rendered with a new UUID and the file name's slug.
    public func plan(_ request: ObjectRequest, owner: String) throws(UploadError) -> PlannedObject {
        let (type, declared) = try catalog.checkObject(request)
        let now = env.nowMillis()
        let uuid = keyUUID(millis: now)
        let values = KeyTemplate.Values(
            userId: owner, uuid: uuid, epochMillis: now,
            ext: UploadRules.fileExtension(for: request.mediaType), chatroomId: request.chatroomId, imageKey: uuid,
            filename: UploadRules.slug(request.filename))
        let (key, permanent) = try type.keys(values)
        return PlannedObject(
            type: type, key: key, permanentKey: permanent, contentType: request.mediaType,
            metadataJSON: request.metadataJSON, freshKey: Self.makesFreshKey(type, uuid: uuid), declared: declared)
    }

    /// The lifetime of a browser upload's URL: `expires`, or the type's when shorter.
    public static func browserLifetime(_ object: PlannedObject, expires: Int) -> Int {
        min(expires, object.type.config.expiresSeconds)
    }

    /// A single-request browser upload of `object` in `form`, valid `lifetime` seconds, to be answered
    /// once its intent (under the key, so a confirmation of the key finds it) is stored; nothing is
    /// stored when `recordsIntent` is false (a HEAD). A PUT signs the declared size and the digests
    /// storage checks; a POST's policy pins a declared size as its `content-length-range` (its digests
    /// are proven at confirmation).
    public func issueBrowser(
        _ object: PlannedObject, form: BrowserForm, lifetime: Int, owner: String, recordsIntent: Bool
    ) throws(UploadError) -> Pending<BrowserUpload> {
        let now = env.nowMillis()
        let upload: BrowserUpload
        switch form {
        case .put:
            upload = .put(
                try presignPut(
                    signers.configured, key: object.key, expires: lifetime,
                    signedHeaders: putHeaders(
                        contentType: object.contentType, declared: object.declared, ifNoneMatch: false),
                    nowMillis: now))
        case .post:
            do {
                upload = .post(
                    try signers.configured.presignPost(
                        PresignPostRequest(
                            bucket: bucket, key: .exact(object.key), contentType: object.contentType,
                            contentLength: object.declared.size.map { $0...$0 } ?? 0...object.type.config.maxBytes,
                            successActionStatus: 201, expires: lifetime),
                        now: now / 1000))
            } catch {
                throw Self.signingError(error)
            }
        }
        guard recordsIntent else { return Pending(kept: upload) }
        return Pending(
            upload,
            intent: intent(
                of: object, owner: owner, imageKey: object.key, nowMs: now, lifetimeMs: Int64(lifetime) * 1000),
            keeper: intents)
    }

    /// The intent of a browser upload's `object` under `imageKey`, valid `lifetimeMs` from `nowMs`.
    func intent(of object: PlannedObject, owner: String, imageKey: String, nowMs: Int64, lifetimeMs: Int64)
        -> UploadIntent
    {
        UploadIntent(
            ownerId: owner, imageKey: imageKey, objectKey: object.key, permanentKey: object.permanentKey,
            type: object.type.config.name, contentType: object.contentType, allowedContentTypes: [object.contentType],
            maxBytes: object.declared.size ?? object.type.config.maxBytes, createdAtMs: nowMs,
            expiresAtMs: nowMs + lifetimeMs, metadataJSON: object.metadataJSON,
            freshKey: object.freshKey && imageKey.utf8.starts(with: object.key.utf8),
            declaredSize: object.declared.size,
            checksumSHA256: object.declared.checksumSHA256, contentMD5: object.declared.contentMD5)
    }

    /// Stores a multipart upload's intent and waits for it (`MultipartUploads.create`, on a worker): the
    /// same one hand-off.
    func handOffAndWait(_ intent: UploadIntent) throws(UploadError) { try intents.handOffAndWait(intent) }
}
