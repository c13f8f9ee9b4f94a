import ObjectStore

/// The object store as the lifecycle uses it: look at an object (HEAD, or its first bytes for the
/// content check), prove its digests (its stored checksum, or its bytes hashed), promote it by copy,
/// delete it, and probe the bucket for `/readyz`. `S3Client` is the
/// real one; tests put an in-memory store here.
///
/// Every call fails with `ObjectStoreError`.
public protocol ObjectStorage: Sendable {
    /// The object's size, content type and ETag, or nil when there is none under `key`.
    func head(key: String) throws(ObjectStoreError) -> ObjectInfo?

    /// Copies `source` to `destination`; with `expecting` (the source's HEAD result), only while the
    /// source is still that object.
    @discardableResult
    func copy(from source: String, to destination: String, contentType: String?, expecting: ObjectInfo?)
        throws(ObjectStoreError) -> ObjectInfo

    /// The object's first `maxBytes` bytes (all of it when shorter) with its size, content type and ETag,
    /// from one ranged GET; nil when there is none under `key`.
    func readPrefix(key: String, maxBytes: Int) throws(ObjectStoreError) -> ObjectPrefix?

    /// As `head(key:)`, asking for the store's checksums (`x-amz-checksum-mode: ENABLED`): the whole
    /// object's SHA-256 in `ObjectInfo.checksumSHA256` when the store kept one.
    func headWithChecksums(key: String) throws(ObjectStoreError) -> ObjectInfo?

    /// The SHA-256 and MD5 of the whole object under `key`, read from storage in bounded memory, while it
    /// is still the object of `ifMatch` (an ETag) when given; nil when there is none under `key`.
    func digests(key: String, ifMatch: String?) throws(ObjectStoreError) -> ObjectDigests?

    /// The whole object under `key` handed to `sink` piece by piece as it is read from storage (bounded
    /// memory), while it is still the object of `ifMatch` (an ETag) when given; its size, or nil when there
    /// is none under `key`. One attempt, never retried (the malware scan starts over instead); an error
    /// `sink` throws stops the read and is thrown.
    func read(key: String, ifMatch: String?, into sink: (UnsafeRawBufferPointer) throws(ObjectStoreError) -> Void)
        throws(ObjectStoreError) -> Int64?
    /// Deletes the object under `key` (no error when there is none).
    func delete(key: String) throws(ObjectStoreError)

    /// One signed request to the bucket: its status, S3's error code and the storage server's clock.
    func probeBucket() throws(ObjectStoreError) -> S3Client.BucketProbe
}

extension ObjectStorage {
    /// Copies `source` to `destination` keeping its content type, conditional on `expecting`.
    @discardableResult
    public func copy(from source: String, to destination: String, expecting: ObjectInfo) throws(ObjectStoreError)
        -> ObjectInfo
    {
        try copy(from: source, to: destination, contentType: nil, expecting: expecting)
    }
}

extension S3Client: ObjectStorage {}
