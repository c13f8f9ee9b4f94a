import Synchronization

/// The owners of multipart uploads this server created or has already checked against the store, so
/// that signing a part URL (one request per part) is answered on the event loop without the worker
/// pool's hop and a store lookup.
///
/// A hit is only as good as the store's answer it copies: an entry is made from an intent the store
/// (or this server, at creation) says the caller owns, lives no longer than that intent, and goes when
/// the upload is completed or aborted here. A miss, a full table (cleared at once: bounded memory, no
/// eviction order to keep) or another caller falls back to the store. Storage itself still refuses a
/// part of an upload that is gone (`NoSuchUpload`), so an entry outliving its upload elsewhere (the
/// janitor's abort) signs nothing storage would accept.
///
/// Entries are found by upload ID alone (hashing it is cheaper than hashing `key#uploadId`, and
/// nothing is concatenated per request); the entry keeps the key, and a hit needs the key too.
public final class UploadOwnerCache: Sendable {
    struct Entry: Sendable {
        let key: String
        let ownerId: String
        let expiresAtMs: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` uploads.
    public init(capacity: Int = 16_384) {
        self.capacity = capacity
    }

    /// Remembers that `ownerId` owns the upload `uploadId` of `key` until `expiresAtMs`.
    public func remember(key: String, uploadId: String, ownerId: String, expiresAtMs: Int64) {
        entries.withLock { table in
            if table.count >= capacity, table[uploadId] == nil { table.removeAll(keepingCapacity: true) }
            table[uploadId] = Entry(key: key, ownerId: ownerId, expiresAtMs: expiresAtMs)
        }
    }

    /// Whether `ownerId` is known to own the upload `uploadId` of `key` at `nowMs`.
    public func owns(key: String, uploadId: String, ownerId: String, nowMs: Int64) -> Bool {
        entries.withLock { table in
            guard let e = table[uploadId] else { return false }
            return e.key == key && e.ownerId == ownerId && e.expiresAtMs > nowMs
        }
    }

    /// Forgets the upload `uploadId` of `key` (completed or aborted).
    public func forget(key: String, uploadId: String) {
        entries.withLock { table in
            if table[uploadId]?.key == key { table.removeValue(forKey: uploadId) }
        }
    }

    /// How many uploads are remembered.
    public var count: Int { entries.withLock { $0.count } }
}

extension UploadOwnerCache {
    /// `remember` for the upload `ref`.
    public func remember(_ ref: UploadRef, ownerId: String, expiresAtMs: Int64) {
        remember(key: ref.key, uploadId: ref.uploadId, ownerId: ownerId, expiresAtMs: expiresAtMs)
    }

    /// `owns` for the upload `ref`.
    public func owns(_ ref: UploadRef, ownerId: String, nowMs: Int64) -> Bool {
        owns(key: ref.key, uploadId: ref.uploadId, ownerId: ownerId, nowMs: nowMs)
    }

    /// `forget` for the upload `ref`.
    public func forget(_ ref: UploadRef) { forget(key: ref.key, uploadId: ref.uploadId) }
}
