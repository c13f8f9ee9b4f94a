import ObjectStore
import Records
import SigV4

/// The records that follow confirmed uploads, as their owners see them: one page, one record, its
/// removal, and the URL it is read at.
public final class UploadRecords: Sendable {
    private let store: any RecordStore
    private let storage: (any ObjectStorage)?
    /// Signs the read URLs of records with the current credentials (a URL is shortened to their life;
    /// none is given when they are about to expire).
    private let readSigner: RotatingPresigner
    /// The bucket records' objects are in.
    public let bucket: String
    /// Lifetime of a read URL, in seconds.
    private let readUrlExpires: Int
    /// Records are read at `cdnBaseUrl/key` when set, else by a signed GET.
    private let cdnBaseUrl: String?
    private let env: UploadEnvironment

    /// The records of `store`; `storage` nil leaves objects alone on removal (`s3.verifyUploads = false`).
    public init(
        store: any RecordStore, storage: (any ObjectStorage)?, readSigner: RotatingPresigner, bucket: String,
        readUrlExpires: Int, cdnBaseUrl: String?, env: UploadEnvironment
    ) {
        self.store = store
        self.storage = storage
        self.readSigner = readSigner
        self.bucket = bucket
        self.readUrlExpires = readUrlExpires
        self.cdnBaseUrl = cdnBaseUrl
        self.env = env
    }

    /// On a worker: one page of `owner`'s records, of `type` when given, after `cursor`.
    public func page(owner: String, type: String?, limit: Int, after cursor: RecordCursor?) throws(UploadError)
        -> (records: [ImageRecord], next: RecordCursor?)
    {
        try UploadError.storing { () throws(RecordsError) in
            try store.listRecords(ownerId: owner, type: type, limit: limit, after: cursor)
        }
    }

    /// On a worker: `owner`'s record with `id`, else `.recordNotFound`.
    public func record(id: String, owner: String) throws(UploadError) -> ImageRecord {
        guard let r = try UploadError.storing({ () throws(RecordsError) in try store.record(id: id, ownerId: owner) })
        else { throw .recordNotFound }
        return r
    }

    /// On a worker: deletes the object of `owner`'s record `id`, then the record (a record never points
    /// at a deleted object).
    public func remove(id: String, owner: String) throws(UploadError) {
        let r = try record(id: id, owner: owner)
        if let storage {
            try UploadError.calling { () throws(ObjectStoreError) in try storage.delete(key: r.objectKey) }
        }
        _ = try UploadError.storing { () throws(RecordsError) in try store.deleteRecord(id: r.id, ownerId: owner) }
    }

    /// A CDN URL when configured, else a fresh signed GET valid `expires` seconds (default
    /// `presign.readUrlExpiresSeconds`); nil when the credentials cannot sign one now.
    public func readURL(for key: String, expires: Int? = nil) -> String? {
        if let cdnBaseUrl { return cdnBaseUrl + "/" + key }
        let now = env.nowMillis() / 1000
        return try? readSigner.presign(
            PresignRequest(method: "GET", bucket: bucket, key: key, expires: expires ?? readUrlExpires), now: now
        ).url
    }
}
