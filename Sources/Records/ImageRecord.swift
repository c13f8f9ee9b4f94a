/// A confirmed upload: the durable record that `POST /images` creates and `GET /images` lists.
public struct ImageRecord: Sendable, Equatable {
    /// The record's id: a lower-case UUID chosen by the caller.
    public var id: String
    /// The caller who confirmed the upload; only this owner may read or delete the record.
    public var ownerId: String
    /// The key the upload was confirmed with; unique across all records.
    public var imageKey: String
    /// Where the object lives (the permanent key after promotion).
    public var objectKey: String
    /// The image type (e.g. `PROFILE`).
    public var type: String
    /// The object's media type: the detected format's (`detectedType`) when the content check ran, else
    /// the content type the store reported.
    public var contentType: String
    /// The object's size in bytes.
    public var size: Int64
    /// The object's ETag as the store reported it.
    public var etag: String
    /// The client's metadata: JSON text, stored and returned byte for byte as given.
    public var metadataJSON: String
    /// When the record was created, in milliseconds since the Unix epoch.
    public var createdAtMs: Int64
    /// The media type of the format the content check found in the object's first bytes; nil when the
    /// type's check is off (or for records made before schema version 3).
    public var detectedType: String?
    /// The image's width in pixels as its header states it; nil when not checked or not in the bytes read.
    public var width: Int64?
    /// The image's height in pixels as its header states it; nil when not checked or not in the bytes read.
    public var height: Int64?
    /// The SHA-256 of the object's bytes (base64 of 32 bytes): the one its client declared, proven at
    /// confirmation, or the one presignd computed (`types.<T>.computeSha256`); nil when neither (and for
    /// records made before schema version 11).
    public var sha256: String?
    /// Where the record is in its life (schema version 13): `published` (readable), `scanning` (waiting
    /// for the malware scan, no URL yet) or `rejected` (the scan refused it, its object is gone). Every
    /// record made before version 13 is `published`.
    public var state: RecordState
    /// Why a `rejected` record was refused (`MALWARE_FOUND`, `TOO_LARGE_TO_SCAN`); nil otherwise.
    public var rejectionReason: String?
    /// What the refusal found (the signature's name for `MALWARE_FOUND`); nil otherwise.
    public var rejectionDetail: String?
    /// The permanent key a `scanning` record's object is promoted to once its scan passes; nil when its
    /// type has none (and for every record not scanning).
    public var publishKey: String?

    /// Creates a record from its fields.
    public init(
        id: String, ownerId: String, imageKey: String, objectKey: String, type: String, contentType: String,
        size: Int64, etag: String, metadataJSON: String, createdAtMs: Int64, detectedType: String? = nil,
        width: Int64? = nil, height: Int64? = nil, sha256: String? = nil, state: RecordState = .published,
        rejectionReason: String? = nil, rejectionDetail: String? = nil, publishKey: String? = nil
    ) {
        self.id = id
        self.ownerId = ownerId
        self.imageKey = imageKey
        self.objectKey = objectKey
        self.type = type
        self.contentType = contentType
        self.size = size
        self.etag = etag
        self.metadataJSON = metadataJSON
        self.createdAtMs = createdAtMs
        self.detectedType = detectedType
        self.width = width
        self.height = height
        self.sha256 = sha256
        self.state = state
        self.rejectionReason = rejectionReason
        self.rejectionDetail = rejectionDetail
        self.publishKey = publishKey
    }
}
