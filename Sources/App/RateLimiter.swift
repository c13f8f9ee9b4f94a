import Synchronization

/// Token-bucket rate limits keyed by a string (a user id, a client address).
///
/// Each key's bucket holds at most `burst` tokens and refills at `perMinute` tokens a minute; a request
/// takes one token or is refused with the seconds until one is back. Buckets live in 16 shards (one
/// uncontended lock each); a shard that grows past its share of `maxKeys` drops the buckets that are full
/// again, which is the same as forgetting them, so memory stays bounded under a flood of new keys.
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

    private let perMs: Double
    private let burst: Double
    private let maxKeysPerShard: Int
    private final class Shard: Sendable {
        let buckets = Mutex<[String: Bucket]>([:])
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
        return shard.buckets.withLock { buckets -> Decision in
            var b = buckets[key] ?? Bucket(tokens: burst, lastMs: t)
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
            buckets[key] = b
            if buckets.count > maxKeysPerShard { prune(&buckets, now: t) }
            return decision
        }
    }

    /// Keys tracked now (for tests and metrics).
    public var trackedKeys: Int { shards.reduce(0) { n, s in n + s.buckets.withLock { $0.count } } }

    private func prune(_ buckets: inout [String: Bucket], now t: Int64) {
        buckets = buckets.filter { _, b in b.tokens + Double(t - b.lastMs) * perMs < burst }
        if buckets.count > maxKeysPerShard {
            // Still too many busy keys: forget the half that were seen longest ago.
            let keep = buckets.sorted { $0.value.lastMs > $1.value.lastMs }.prefix(maxKeysPerShard / 2)
            buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
    }
}
