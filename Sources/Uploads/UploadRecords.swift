import ObjectStore
import Records
import SigV4

/// The records that follow confirmed uploads, as their owners see them: one page, one record, its
/// removal, and the URL it is read at.
public final class UploadRecords: Sendable {
    private let store: any RecordStore & RecordDigests
    private let storage: (any ObjectStorage)?
    /// Signs the read URLs of records with the current credentials (a URL is shortened to their life;
    /// none is given when they are about to expire).
    private let readSigner: RotatingPresigner
    /// The bucket records' objects are in.
    public let bucket: String
    /// Lifetime of a read URL, in seconds (`presign.readUrlExpiresSeconds`).
    private let readUrlExpires: Int
    /// When read URLs are signed (`presign.readUrlWindowSeconds`) and how long they live.
    public let window: ReadWindow
    /// Records are read at `cdnBaseUrl/key` when set, else by a signed GET.
    private let cdnBaseUrl: String?
    private let env: UploadEnvironment
    /// The outbound webhook events of a removal (`upload.deleted`), written with it.
    private let webhooks: WebhookEvents

    /// The records of `store`; `storage` nil leaves objects alone on removal (`s3.verifyUploads = false`).
    /// Read URLs live `readUrlExpires` seconds past the end of their window of `readUrlWindow` seconds
    /// (0: signed at the current second for `readUrlExpires`; `ReadWindow`).
    public init(
        store: any RecordStore & RecordDigests, storage: (any ObjectStorage)?, readSigner: RotatingPresigner,
        bucket: String, readUrlExpires: Int, cdnBaseUrl: String?, env: UploadEnvironment, readUrlWindow: Int = 0,
        webhooks: WebhookEvents = .off
    ) {
        self.store = store
        self.storage = storage
        self.readSigner = readSigner
        self.bucket = bucket
        self.readUrlExpires = readUrlExpires
        self.window = ReadWindow(windowSeconds: readUrlWindow, lifeSeconds: readUrlExpires)
        self.cdnBaseUrl = cdnBaseUrl
        self.env = env
        self.webhooks = webhooks
    }

    /// On a worker: one page of `owner`'s records, of `type` when given, after `cursor`.
    public func page(owner: String, type: String?, limit: Int, after cursor: RecordCursor?) throws(UploadError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try UploadError.storing { () throws(RecordsError) in
            try store.listRecords(ownerId: owner, type: type, limit: limit, after: cursor)
        }
    }

    /// On a worker: one page of `owner`'s records whose SHA-256 is `sha256` (base64), of `type` when given,
    /// after `cursor`.
    public func page(owner: String, sha256: String, type: String?, limit: Int, after cursor: RecordCursor?)
        throws(UploadError) -> (records: [ImageRecord], next: RecordCursor?)
    {
        try UploadError.storing { () throws(RecordsError) in
            try store.listRecords(ownerId: owner, sha256: sha256, type: type, limit: limit, after: cursor)
        }
    }

    /// On a worker: `owner`'s record with `id`, else `.recordNotFound`.
    public func record(id: String, owner: String) throws(UploadError) -> ImageRecord {
        guard let r = try UploadError.storing({ () throws(RecordsError) in try store.record(id: id, ownerId: owner) })
        else { throw .recordNotFound }
        return r
    }

    /// On a worker: deletes the object of `owner`'s record `id`, then the record (a record never points
    /// at a deleted object), with its `upload.deleted` event in the same transaction.
    public func remove(id: String, owner: String) throws(UploadError) {
        let r = try record(id: id, owner: owner)
        if let storage {
            try UploadError.calling { () throws(ObjectStoreError) in try storage.delete(key: r.objectKey) }
        }
        _ = try UploadError.storing { () throws(RecordsError) in
            try store.deleteRecord(id: r.id, ownerId: owner, events: webhooks.deleted)
        }
    }

    /// On a worker: those of `owner`'s records with `ids` (distinct, at most
    /// `RecordStoreLimits.maxIdsPerRead`) that exist, in any order.
    public func records(ids: [String], owner: String) throws(UploadError) -> [ImageRecord] {
        try UploadError.storing { () throws(RecordsError) in try store.records(ids: ids, ownerId: owner) }
    }

    /// The read URL of `record` now: `cdnBaseUrl/key` when configured, else a GET signed at the start of
    /// the current window (`ReadWindow`) with the record's serving policy (`ReadPolicy`, `requested`
    /// asking for a disposition), its life shortened to the credentials'. Refused with
    /// `credentialsUnavailable` when the credentials have too little life left.
    /// Only a `published` record has one: a `scanning` one is `.scanPending`, a `rejected` one (its object
    /// deleted) `.recordNotFound`.
    public func readURL(for record: ImageRecord, requested: ReadDisposition? = nil) throws(UploadError) -> ReadURL {
        switch record.state {
        case .published: break
        case .scanning: throw .scanPending
        case .rejected: throw .recordNotFound
        }
        let policy = ReadPolicy(record: record, requested: requested)
        if let cdnBaseUrl {
            return ReadURL(
                url: cdnBaseUrl + "/" + record.objectKey, expiresAt: nil, contentType: policy.contentType,
                disposition: nil)
        }
        let now = env.nowMillis() / 1000
        let (signedAt, expires) = window.signing(at: now)
        let presigner = readSigner.current
        // The lifetime goes into the policy's max-age too, so it is clamped to the credentials first.
        let life: Int
        do {
            life = try readSigner.lifetime(expires, signedAt: signedAt, now: now, on: presigner)
        } catch {
            throw Issuer.signingError(error)
        }
        let request = PresignRequest(
            method: "GET", bucket: bucket, key: record.objectKey, expires: life, query: policy.query(lifeSeconds: life))
        do {
            let signed = try presigner.presign(request, now: signedAt)
            return ReadURL(
                url: signed.url, expiresAt: signed.expiresAt, contentType: policy.contentType,
                disposition: policy.disposition)
        } catch {
            throw Issuer.signingError(error)
        }
    }

    /// Now, in epoch seconds, on the lifecycle's clock.
    public func nowSeconds() -> Int64 { env.nowMillis() / 1000 }

    /// The `url` member of a record's JSON (`POST /images`, `GET /images…`): `readURL(for:)`'s URL, the
    /// same stable URL; nil when the credentials cannot sign one now, and for a record not `published`.
    public func url(for record: ImageRecord) -> String? {
        do {
            return try readURL(for: record).url
        } catch {
            return nil
        }
    }

    /// A CDN URL when configured, else a GET signed at the current second, valid `expires` seconds
    /// (default `presign.readUrlExpiresSeconds`), without a serving policy (the compatibility routes'
    /// `{url}`, as their apps' servers signed it); nil when the credentials cannot sign one now.
    public func readURL(for key: String, expires: Int? = nil) -> String? {
        if let cdnBaseUrl { return cdnBaseUrl + "/" + key }
        let now = env.nowMillis() / 1000
        return try? readSigner.presign(
            PresignRequest(method: "GET", bucket: bucket, key: key, expires: expires ?? readUrlExpires), now: now
        ).url
    }
}
