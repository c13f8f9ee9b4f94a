/// One object event from the store, whichever way it came (RGW's push, MinIO's webhook, AWS S3 through
/// SNS), with the object key decoded.
public struct StoreEvent: Sendable, Equatable {
    /// Which store sent it, from the record's `eventSource`.
    public enum Source: String, Sendable, Equatable {
        /// Ceph RGW (`ceph:s3`): keys come as they are.
        case ceph
        /// MinIO (`minio:s3`): keys come URL-encoded.
        case minio
        /// AWS S3 (`aws:s3`): keys come URL-encoded (a space as `+`).
        case aws
    }

    /// Which store sent it.
    public var source: Source
    /// The event type without its `s3:` prefix, e.g. `ObjectCreated:Put`.
    public var eventName: String
    /// The bucket's name.
    public var bucket: String
    /// The object key, decoded.
    public var key: String
    /// The object's size in bytes, when the record gives it.
    public var size: Int64?
    /// The object's ETag without quotes, when the record gives it.
    public var etag: String?
    /// RGW's `opaqueData` (the topic's `OpaqueData`), when present.
    public var opaqueData: String?
    /// The record's `eventTime` as sent.
    public var eventTime: String?
    /// The record's `sequencer` (orders events of one key), when present.
    public var sequencer: String?

    /// An event from its fields.
    public init(
        source: Source, eventName: String, bucket: String, key: String, size: Int64?, etag: String?,
        opaqueData: String? = nil, eventTime: String? = nil, sequencer: String? = nil
    ) {
        self.source = source
        self.eventName = eventName
        self.bucket = bucket
        self.key = key
        self.size = size
        self.etag = etag
        self.opaqueData = opaqueData
        self.eventTime = eventTime
        self.sequencer = sequencer
    }

    /// True for an object creation (`ObjectCreated:*`), what can confirm an upload.
    public var isCreation: Bool { eventName.hasPrefix("ObjectCreated:") }
}
