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
final class UploadOwnerCache: Sendable {
    struct Entry: Sendable {
        let ownerId: String
        let expiresAtMs: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let capacity: Int

    /// A cache of at most `capacity` uploads.
    init(capacity: Int = 16_384) {
        self.capacity = capacity
    }

    /// Remembers that `ownerId` owns the upload `pairKey` until `expiresAtMs`.
    func remember(_ pairKey: String, ownerId: String, expiresAtMs: Int64) {
        entries.withLock { table in
            if table.count >= capacity, table[pairKey] == nil { table.removeAll(keepingCapacity: true) }
            table[pairKey] = Entry(ownerId: ownerId, expiresAtMs: expiresAtMs)
        }
    }

    /// Whether `ownerId` is known to own `pairKey` at `nowMs`.
    func owns(_ pairKey: String, ownerId: String, nowMs: Int64) -> Bool {
        entries.withLock { table in
            guard let e = table[pairKey] else { return false }
            return e.ownerId == ownerId && e.expiresAtMs > nowMs
        }
    }

    /// Forgets `pairKey` (completed or aborted).
    func forget(_ pairKey: String) {
        _ = entries.withLock { $0.removeValue(forKey: pairKey) }
    }

    /// How many uploads are remembered.
    var count: Int { entries.withLock { $0.count } }
}
