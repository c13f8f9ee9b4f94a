import ObjectStore
import Synchronization
import Uploads

/// An object store in memory: objects by key, every call logged, and an optional failure for every call.
public final class InMemoryObjectStorage: ObjectStorage {
    private let objects = Mutex<[String: (info: ObjectInfo, bytes: [UInt8])]>([:])
    private let log = Mutex<[String]>([])
    private let failure = Mutex<ObjectStoreError?>(nil)
    private let deleteFailure = Mutex<ObjectStoreError?>(nil)
    /// When each object was last written (epoch seconds), for listings.
    let modified = Mutex<[String: Int64]>([:])

    /// An empty store.
    public init() {}

    /// Puts `bytes` under `key`, last written at `lastModified` (epoch seconds, for listings); the
    /// store keeps `checksumSHA256` with it when given (as AWS S3 keeps a checked `x-amz-checksum-sha256`).
    public func put(
        _ key: String, bytes: [UInt8], contentType: String?, etag: String = "e1", lastModified: Int64 = 0,
        checksumSHA256: String? = nil
    ) {
        let info = ObjectInfo(
            size: Int64(bytes.count), contentType: contentType, etag: etag, checksumSHA256: checksumSHA256)
        objects.withLock { $0[key] = (info, bytes) }
        modified.withLock { $0[key] = lastModified }
    }

    /// The object under `key`, without logging a call.
    func stored(_ key: String) -> (info: ObjectInfo, bytes: [UInt8])? { objects.withLock { $0[key] } }

    /// The objects under `prefix`, in key order, as (key, size, etag).
    func sorted(under prefix: String) -> [(key: String, size: Int64, etag: String)] {
        objects.withLock { objects in
            objects.filter { $0.key.hasPrefix(prefix) }.map { ($0.key, $0.value.info.size, $0.value.info.etag) }
                .sorted { $0.key < $1.key }
        }
    }

    /// Logs `text` as a call, failing when a failure is set.
    func logCall(_ text: String) throws(ObjectStoreError) { try call(text) }

    /// Makes every later call fail with `error` (nil: succeed again).
    public func failEveryCall(with error: ObjectStoreError?) { failure.withLock { $0 = error } }

    /// Makes every later DELETE fail with `error` (nil: succeed again).
    public func failDeletes(with error: ObjectStoreError?) { deleteFailure.withLock { $0 = error } }

    /// The keys that hold an object.
    public var keys: Set<String> { objects.withLock { Set($0.keys) } }

    /// The content type stored under `key`.
    public func contentType(of key: String) -> String? { objects.withLock { $0[key]?.info.contentType } }

    /// The calls so far, as `HEAD k`, `GET k 0-65535`, `COPY a b [type]`, `DELETE k`.
    public var calls: [String] { log.withLock { $0 } }

    private func call(_ text: String) throws(ObjectStoreError) {
        log.withLock { $0.append(text) }
        if let error = failure.withLock({ $0 }) { throw error }
    }

    /// The object's info without its kept checksum, which only a HEAD that asks gets (a `HEAD k` call).
    public func head(key: String) throws(ObjectStoreError) -> ObjectInfo? {
        try call("HEAD \(key)")
        return objects.withLock { $0[key]?.info }.map(Self.withoutChecksum)
    }

    /// The object's first bytes (a `GET k 0-n` call).
    public func readPrefix(key: String, maxBytes: Int) throws(ObjectStoreError) -> ObjectPrefix? {
        try call("GET \(key) 0-\(maxBytes - 1)")
        return objects.withLock { $0[key] }.map {
            ObjectPrefix(bytes: Array($0.bytes.prefix(maxBytes)), info: Self.withoutChecksum($0.info))
        }
    }

    /// `info` as a request that does not ask for checksums sees it.
    static func withoutChecksum(_ info: ObjectInfo) -> ObjectInfo {
        var seen = info
        seen.checksumSHA256 = nil
        return seen
    }

    /// A copy, refused (412) when `expecting` names another ETag (a `COPY a b [type]` call).
    public func copy(from source: String, to destination: String, contentType: String?, expecting: ObjectInfo?)
        throws(ObjectStoreError) -> ObjectInfo
    {
        try call("COPY \(source) \(destination)" + (contentType.map { " " + $0 } ?? ""))
        let copied = objects.withLock { objects -> ObjectInfo? in
            guard var object = objects[source], expecting.map({ $0.etag == object.info.etag }) ?? true else {
                return nil
            }
            if let contentType { object.info.contentType = contentType }
            objects[destination] = object
            return object.info
        }
        guard let copied else { throw .status(412, code: "PreconditionFailed") }
        return copied
    }

    /// Deletes the object (a `DELETE k` call).
    public func delete(key: String) throws(ObjectStoreError) {
        try call("DELETE \(key)")
        if let error = deleteFailure.withLock({ $0 }) { throw error }
        _ = objects.withLock { $0.removeValue(forKey: key) }
    }

    /// Always fails: there is no bucket (a `PROBE` call).
    public func probeBucket() throws(ObjectStoreError) -> S3Client.BucketProbe {
        try call("PROBE")
        throw .connection("the in-memory store has no bucket to probe")
    }
}
