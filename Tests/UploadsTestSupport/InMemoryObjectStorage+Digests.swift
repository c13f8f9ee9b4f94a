import Crypto
import ObjectStore

extension InMemoryObjectStorage {
    /// The object's info with its kept SHA-256 (a `HEAD+checksums k` call).
    public func headWithChecksums(key: String) throws(ObjectStoreError) -> ObjectInfo? {
        try logCall("HEAD+checksums \(key)")
        return stored(key)?.info
    }

    /// The digests of the object's bytes, refused (412) when `ifMatch` names another ETag (a
    /// `READ k` call).
    public func digests(key: String, ifMatch: String?) throws(ObjectStoreError) -> ObjectDigests? {
        try logCall("READ \(key)")
        guard let object = stored(key) else { return nil }
        if let ifMatch, ifMatch != object.info.etag { throw .status(412, code: "PreconditionFailed") }
        return ObjectDigests(
            sha256: SHA256.hash(object.bytes).bytes, md5: MD5.hash(object.bytes), size: Int64(object.bytes.count))
    }

    /// The object's bytes handed to `sink` in pieces of at most 4 KiB, refused (412) when `ifMatch` names
    /// another ETag (a `READ k` call).
    public func read(
        key: String, ifMatch: String?, into sink: (UnsafeRawBufferPointer) throws(ObjectStoreError) -> Void
    ) throws(ObjectStoreError) -> Int64? {
        try logCall("READ \(key)")
        guard let object = stored(key) else { return nil }
        if let ifMatch, ifMatch != object.info.etag { throw .status(412, code: "PreconditionFailed") }
        for start in stride(from: 0, to: object.bytes.count, by: 4096) {
            var piece = Array(object.bytes[start..<min(start + 4096, object.bytes.count)])
            let count = piece.count
            try piece.withUnsafeMutableBufferPointer { (buffer) throws(ObjectStoreError) in
                try sink(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
            }
        }
        return Int64(object.bytes.count)
    }
}
