/// An issued upload URL that may later be confirmed: who may confirm it and what the object must look like.
///
/// Intents are written asynchronously (see `IntentWriter`); losing the last few on a crash only means the
/// client asks for a new URL.
public struct UploadIntent: Sendable, Equatable {
    /// The caller the URL was issued to; only this owner may confirm it.
    public var ownerId: String
    /// The lookup key the client confirms with: client B's lower-case UUID, or client P's object key.
    public var imageKey: String
    /// The object key the presigned PUT URL writes to.
    public var objectKey: String
    /// Where a confirmed object is promoted (copied) to; nil when the type has no permanent-key template.
    public var permanentKey: String?
    /// The image type the URL was issued for (e.g. `PROFILE`).
    public var type: String
    /// The content type the URL was signed with, or nil when the signature does not bind one.
    public var contentType: String?
    /// The content types the confirmed object may have.
    public var allowedContentTypes: [String]
    /// The largest object size, in bytes, that confirmation accepts.
    public var maxBytes: Int64
    /// When the URL was issued, in milliseconds since the Unix epoch.
    public var createdAtMs: Int64
    /// When the URL stops working, in milliseconds since the Unix epoch; expired and unconfirmed intents are
    /// cleaned up by the janitor.
    public var expiresAtMs: Int64
    /// The metadata the record made from this intent keeps when its confirmation brings none: a JSON
    /// object, serialised (Uppy's file metadata, given when the upload was created); nil for none.
    public var metadataJSON: String?
    /// A hint to the store's writer, neither stored nor compared (`==` leaves it out): true when the
    /// image key holds a UUID this server has just drawn, so that no intent and no record can have it
    /// yet. The PostgreSQL store then copies such intents in (`COPY`) without looking for an earlier
    /// one (and falls back to its upsert if the key was taken after all); the SQLite store inserts them
    /// without looking for a record of the key first; the in-memory store ignores it.
    public var freshKey: Bool
    /// The object's size as the client declared it when the URL was issued (schema version 11): the
    /// confirmation holds the object to it exactly (a multipart completion's parts too); nil when none
    /// was declared.
    public var declaredSize: Int64?
    /// The SHA-256 of the object's bytes the client declared (base64 of 32 bytes), proven at
    /// confirmation before it is recorded; nil when none was declared.
    public var checksumSHA256: String?
    /// The MD5 of the object's bytes the client declared (base64 of 16 bytes), proven at confirmation;
    /// nil when none was declared.
    public var contentMD5: String?

    /// Creates an intent from its fields.
    public init(
        ownerId: String, imageKey: String, objectKey: String, permanentKey: String?, type: String,
        contentType: String?, allowedContentTypes: [String], maxBytes: Int64, createdAtMs: Int64, expiresAtMs: Int64,
        metadataJSON: String? = nil, freshKey: Bool = false, declaredSize: Int64? = nil,
        checksumSHA256: String? = nil, contentMD5: String? = nil
    ) {
        self.ownerId = ownerId
        self.imageKey = imageKey
        self.objectKey = objectKey
        self.permanentKey = permanentKey
        self.type = type
        self.contentType = contentType
        self.allowedContentTypes = allowedContentTypes
        self.maxBytes = maxBytes
        self.createdAtMs = createdAtMs
        self.expiresAtMs = expiresAtMs
        self.metadataJSON = metadataJSON
        self.freshKey = freshKey
        self.declaredSize = declaredSize
        self.checksumSHA256 = checksumSHA256
        self.contentMD5 = contentMD5
    }

    /// Equal when every stored field is (`freshKey`, a hint to the writer, is left out).
    public static func == (lhs: UploadIntent, rhs: UploadIntent) -> Bool {
        lhs.ownerId == rhs.ownerId && lhs.imageKey == rhs.imageKey && lhs.objectKey == rhs.objectKey
            && lhs.permanentKey == rhs.permanentKey && lhs.type == rhs.type && lhs.contentType == rhs.contentType
            && lhs.allowedContentTypes == rhs.allowedContentTypes && lhs.maxBytes == rhs.maxBytes
            && lhs.createdAtMs == rhs.createdAtMs && lhs.expiresAtMs == rhs.expiresAtMs
            && lhs.metadataJSON == rhs.metadataJSON && lhs.declaredSize == rhs.declaredSize
            && lhs.checksumSHA256 == rhs.checksumSHA256 && lhs.contentMD5 == rhs.contentMD5
    }
}
