import ObjectStore
import Uploads

extension InMemoryObjectStorage: ObjectListing {
    /// One page of the objects under `prefix` in key order (a `LIST prefix after` call); the continuation
    /// token is the last key of the page.
    public func listObjects(prefix: String, continuationToken: String?, maxKeys: Int) throws(ObjectStoreError)
        -> ObjectListPage
    {
        try logCall("LIST \(prefix) \(continuationToken ?? "-")")
        let all = sorted(under: prefix).filter { continuationToken == nil || $0.key > continuationToken! }
        let page = all.prefix(maxKeys)
        let times = modified.withLock { $0 }
        let objects = page.map {
            ObjectListPage.Object(key: $0.key, size: $0.size, etag: $0.etag, lastModified: times[$0.key] ?? 0)
        }
        return ObjectListPage(
            objects: objects, nextContinuationToken: all.count > page.count ? page.last?.key : nil)
    }
}
