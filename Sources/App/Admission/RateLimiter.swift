import Synchronization

/// Token-bucket rate limits keyed by a string (a user id, a client address).
///
/// Each key's bucket holds at most `burst` tokens and refills at `perMinute` tokens a minute; a request
/// takes one token or is refused with the seconds until one is back. Buckets live in 16 shards (one
/// uncontended lock each) of at most `maxKeys / 16` buckets. Forgetting a bucket is the same as filling
/// it, so only full buckets are ever forgotten: a shard that is full when a new key arrives drops its full
/// buckets, and if every bucket left is still refilling (a flood of new callers, each having spent a
/// token), the new key is refused (`limited`, until the first of them is full again) instead of an old,
/// limited bucket being forgotten. A flood of new keys thus cannot reset anyone's limit, and memory
/// stays bounded.
public final class RateLimiter: Sendable {
    /// The verdict for one request.
    public enum Decision: Equatable, Sendable {
        /// Within the limit.
        case allowed
        /// Over the limit; retry after this many whole seconds (at least 1).
        case limited(retryAfterSeconds: Int)
    }

    struct Bucket {
        var tokens: Double
        var lastMs: Int64
    }

    /// One shard's buckets, and until when it refuses new keys without looking (it was full of
    /// refilling buckets, the first of which is full again at that time).
    struct Table {
        var buckets: [String: Bucket] = [:]
        var refuseNewUntilMs: Int64 = .min
    }

    private let perMs: Double
    private let burst: Double
    private let maxKeysPerShard: Int
    private final class Shard: Sendable {
        let table = Mutex(Table())
    }

    private let shards: [Shard]
    private let now: @Sendable () -> Int64

    /// A limiter of `perMinute` requests a minute with bursts of `burst`; `now` gives milliseconds.
    public init(perMinute: Int, burst: Int, maxKeys: Int = 100_000, now: @escaping @Sendable () -> Int64) {
        precondition(perMinute > 0 && burst > 0 && maxKeys > 0, "rate limits are positive")
        self.perMs = Double(perMinute) / 60_000
        self.burst = Double(burst)
        self.maxKeysPerShard = max(1, maxKeys / 16)
        self.shards = (0..<16).map { _ in Shard() }
        self.now = now
    }

    /// Takes a token for `key`, or says how long to wait.
    public func check(_ key: String) -> Decision {
        let t = now()
        var h = Hasher()
        h.combine(key)
        let shard = shards[Int(UInt(bitPattern: h.finalize()) % 16)]
        return shard.table.withLock { table -> Decision in
            var b: Bucket
            if let known = table.buckets[key] {
                b = known
            } else {
                if table.buckets.count >= maxKeysPerShard, let wait = makeRoom(&table, now: t) {
                    return .limited(retryAfterSeconds: max(1, Int((Double(wait) / 1000).rounded(.up))))
                }
                b = Bucket(tokens: burst, lastMs: t)
            }
            if t > b.lastMs {
                b.tokens = min(burst, b.tokens + Double(t - b.lastMs) * perMs)
                b.lastMs = t
            }
            let decision: Decision
            if b.tokens >= 1 {
                b.tokens -= 1
                decision = .allowed
            } else {
                let waitMs = (1 - b.tokens) / perMs
                decision = .limited(retryAfterSeconds: max(1, Int((waitMs / 1000).rounded(.up))))
            }
            table.buckets[key] = b
            return decision
        }
    }

    /// Keys tracked now (for tests and metrics).
    public var trackedKeys: Int { shards.reduce(0) { n, s in n + s.table.withLock { $0.buckets.count } } }

    /// Drops the full buckets of a full shard; nil when that made room, else the milliseconds until the
    /// first remaining bucket is full (new keys are refused until then without another scan).
    private func makeRoom(_ table: inout Table, now t: Int64) -> Int64? {
        if t < table.refuseNewUntilMs { return table.refuseNewUntilMs - t }
        var soonestFullMs = Double.infinity
        table.buckets = table.buckets.filter { _, b in
            let missing = burst - (b.tokens + Double(max(0, t - b.lastMs)) * perMs)
            if missing <= 0 { return false }
            soonestFullMs = min(soonestFullMs, missing / perMs)
            return true
        }
        guard table.buckets.count >= maxKeysPerShard else { return nil }
        let wait = max(1, Int64(soonestFullMs.rounded(.up)))
        table.refuseNewUntilMs = t + wait
        return wait
    }
}
