import ObjectStore

/// Listing the bucket's objects under a prefix, page by page (ListObjectsV2): what the reconciler sweeps.
/// `S3Client` is the real one.
public protocol ObjectListing: Sendable {
    /// One page of at most `maxKeys` (1 to 1000) objects under `prefix`, after `continuationToken`.
    func listObjects(prefix: String, continuationToken: String?, maxKeys: Int) throws(ObjectStoreError)
        -> ObjectListPage
}

extension S3Client: ObjectListing {}
