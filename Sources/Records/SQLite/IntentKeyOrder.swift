import Crypto

/// The leading column of an intent row's primary key (`intents.key_order`, schema version 10): the
/// first 64 bits of the last version-7 UUID in the image key (`UUIDv7.leadingBits(ofLastIn:)`: its
/// time in milliseconds shifted left by 16, then the version nibble and the 12 bits of `rand_a`), or 0
/// when the key holds none.
///
/// A pure function of the key's bytes, so a lookup computes it from the key alone. The UUID the server
/// draws for a key on the issue routes has the URL's expiry to the millisecond as its time and a count
/// of the keys drawn as its `rand_a` (`Issuer.keyUUID`), so rows of such keys sort by expiry, then in
/// the order they were drawn: each commit appends to the end of the table (one end per URL lifetime),
/// and the janitor reads expired rows from its front. Client-chosen keys (client B's random UUIDs) have
/// order 0 and sort by the key itself.
enum IntentKeyOrder {
    /// The order of the row of `imageKey`.
    static func of(_ imageKey: String) -> Int64 {
        UUIDv7.leadingBits(ofLastIn: imageKey) ?? 0
    }

    /// The SQL condition of a row kept in key order (found by the janitor through the primary key): its
    /// expiry is its order's time rounded down to the second, as for every key the issue routes draw
    /// (the URL's `X-Amz-Date` is in whole seconds). The other rows are in the partial index
    /// `intents_expiry`, whose condition is this one negated, word for word (SQLite uses a partial index
    /// only for a query that states its condition).
    static let inKeyOrder = "(expires_at_ms = (key_order >> 16) / 1000 * 1000)"

    /// The first order past the rows in key order that have expired by `nowMs`: a row in key order with
    /// order `o` has expired by `nowMs` exactly when `0 < o < bound`, since its expiry is the whole second
    /// of `o`'s time.
    static func bound(expiredBy nowMs: Int64) -> Int64 {
        // Before the epoch no row in key order has expired (its expiry is at least 0): 1 leaves them all.
        guard nowMs >= 0 else { return 1 }
        let second = min(nowMs, 1 << 47 - 1001) / 1000 * 1000
        return (second + 1000) << 16
    }
}
