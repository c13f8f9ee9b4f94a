import JSON

/// Reads the S3 event notification format (`{"Records": [...]}`), as Ceph RGW pushes it, as MinIO's
/// webhook sends it (with its `EventName` and `Key` beside the records), and as AWS S3 puts it in an SNS
/// Notification's `Message`. Pure.
///
/// Keys are decoded by the record's `eventSource`: `ceph:s3` keys come as they are (RGW 16.2 sends
/// `a b+c.txt` for that key: recorded in Tests/StoreEventsTests/Fixtures), `aws:s3` and `minio:s3` keys are
/// URL-encoded (`a+b%2Bc.txt`). A record that cannot be used (no key, another event type, another
/// bucket, a key that does not decode) is listed in `unusable`; a body that is not this JSON is an error.
public struct S3EventParser: Sendable {
    /// The largest body read (larger: `.tooLarge`).
    public var maxBytes: Int
    /// The most records one delivery may hold (more: `.malformed`).
    public var maxRecords: Int
    /// When set, records of other buckets are unusable (`wrong-bucket`).
    public var bucket: String?

    /// A parser for deliveries of at most `maxBytes` and `maxRecords`, of `bucket` when given.
    public init(maxBytes: Int = 256 * 1024, maxRecords: Int = 100, bucket: String? = nil) {
        self.maxBytes = maxBytes
        self.maxRecords = maxRecords
        self.bucket = bucket
    }

    /// The events of `body`.
    public func parse(_ body: [UInt8]) throws(StoreEventsError) -> EventBatch {
        try parse(try json(body))
    }

    /// The JSON of `body`, within the size limit.
    public func json(_ body: [UInt8]) throws(StoreEventsError) -> JSONValue {
        guard body.count <= maxBytes else { throw .tooLarge(bytes: body.count, limit: maxBytes) }
        do throws(JSONError) {
            return try JSONParser(limits: .init(maxDepth: 16, maxBytes: maxBytes)).parse(body)
        } catch {
            throw .malformed("the body is not JSON (\(error.message))")
        }
    }

    /// The events of a parsed body.
    public func parse(_ root: JSONValue) throws(StoreEventsError) -> EventBatch {
        guard let object = root.objectValue else { throw .malformed("the body is not a JSON object") }
        guard let recordsValue = object["Records"] else {
            // AWS S3's `s3:TestEvent` (sent when a notification is configured) has no records.
            if object["Event"]?.stringValue == "s3:TestEvent" { return EventBatch(events: [], unusable: []) }
            throw .malformed("the body has no Records")
        }
        guard let records = recordsValue.arrayValue else { throw .malformed("Records is not an array") }
        guard records.count <= maxRecords else {
            throw .malformed("\(records.count) records are more than the \(maxRecords) allowed")
        }
        var batch = EventBatch(events: [], unusable: [])
        for (index, record) in records.enumerated() {
            switch Self.event(record) {
            case .failure(let reason):
                batch.unusable.append(.init(index: index, reason: reason.rawValue))
            case .success(let event):
                if let bucket, event.bucket != bucket {
                    batch.unusable.append(.init(index: index, reason: Reason.wrongBucket.rawValue))
                } else if !event.isCreation {
                    batch.unusable.append(.init(index: index, reason: Reason.notACreation.rawValue))
                } else {
                    batch.events.append(event)
                }
            }
        }
        return batch
    }

    /// Why a record is unusable.
    enum Reason: String, Error {
        /// Fields missing or of the wrong type, or a key that does not decode.
        case malformedRecord = "malformed-record"
        /// Not an `ObjectCreated` event.
        case notACreation = "not-a-creation"
        /// Another bucket's.
        case wrongBucket = "wrong-bucket"
    }

    /// One record's event.
    static func event(_ record: JSONValue) -> Result<StoreEvent, Reason> {
        guard let record = record.objectValue, let name = record["eventName"]?.stringValue,
            let s3 = record["s3"]?.objectValue, let bucket = s3["bucket"]?["name"]?.stringValue,
            let object = s3["object"]?.objectValue, let rawKey = object["key"]?.stringValue, !rawKey.isEmpty
        else { return .failure(.malformedRecord) }
        let source: StoreEvent.Source
        switch record["eventSource"]?.stringValue {
        case "ceph:s3": source = .ceph
        case "minio:s3": source = .minio
        case "aws:s3": source = .aws
        default: return .failure(.malformedRecord)
        }
        let key: String
        if source == .ceph {
            key = rawKey
        } else {
            guard let decoded = FormDecoding.decode(rawKey), !decoded.isEmpty else { return .failure(.malformedRecord) }
            key = decoded
        }
        var size: Int64?
        if let value = object["size"] {
            guard let number = value.int64Value, number >= 0 else { return .failure(.malformedRecord) }
            size = number
        }
        let etag = (object["eTag"]?.stringValue).map(Self.unquote).flatMap { $0.isEmpty ? nil : $0 }
        let eventName = name.hasPrefix("s3:") ? String(name.dropFirst(3)) : name
        return .success(
            StoreEvent(
                source: source, eventName: eventName, bucket: bucket, key: key, size: size, etag: etag,
                opaqueData: record["opaqueData"]?.stringValue, eventTime: record["eventTime"]?.stringValue,
                sequencer: object["sequencer"]?.stringValue))
    }

    /// An ETag without surrounding quotes.
    static func unquote(_ etag: String) -> String {
        guard etag.count >= 2, etag.hasPrefix("\""), etag.hasSuffix("\"") else { return etag }
        return String(etag.dropFirst().dropLast())
    }
}
