import Records
import Synchronization

/// A token-bucket rate limit shared by every instance on one PostgreSQL store (`limits.*` with a
/// `postgres://` records URL).
///
/// The request path never waits for the database: each key has a local allowance, this instance's share
/// of the shared bucket (its tokens divided by the number of live instances), which refills locally at the
/// same share of the rate and is spent by requests here. Every `limits.syncIntervalMs` the `RateLimitSync`
/// thread sends what each key spent (`drainUsage`), the store charges it to the shared bucket and answers
/// the bucket's tokens, and the allowance is set from them again (`apply`). What the instances spend
/// between two syncs beyond the limit is charged as a debt (the bucket goes below zero), so over any
/// stretch a caller gets at most one burst more than one server would allow (docs/operations.md).
final class SharedRateLimiter: RequestLimiter {
    /// One key's local state.
    struct Entry {
        /// Tokens this instance may still let through (its share), refilled locally from `lastMs`.
        var allowance: Double
        /// When `allowance` was last refilled or set.
        var lastMs: Int64
        /// Tokens spent here since the last `drainUsage`.
        var consumed: Int64 = 0
        /// Tokens sent by the sync in progress, not yet answered (given back if it fails).
        var sending: Int64 = 0
        /// Whether the key is in the shard's list for the next sync.
        var queued: Bool = false
    }

    /// One shard's keys and those to send at the next sync.
    struct Table {
        var entries: [String: Entry] = [:]
        var queued: [String] = []
    }

    /// The limit's name in the store's keys (`issue-user`).
    let name: String
    /// The rate, tokens per minute, and the bucket's capacity.
    let perMinute: Int64
    let burst: Int64
    private let perMs: Double
    private let maxKeysPerShard: Int
    private final class Shard: Sendable {
        let table = Mutex(Table())
    }
    private let shards: [Shard]
    private let now: @Sendable () -> Int64
    /// Live instances at the last sync (the divisor of every share), at least 1.
    private let instances = Atomic<Int>(1)

    /// A limit named `name` of `perMinute` with buckets of `burst`; `now` gives milliseconds.
    init(name: String, perMinute: Int, burst: Int, maxKeys: Int = 100_000, now: @escaping @Sendable () -> Int64) {
        precondition(perMinute > 0 && burst > 0 && maxKeys > 0, "rate limits are positive")
        self.name = name
        self.perMinute = Int64(perMinute)
        self.burst = Int64(burst)
        perMs = Double(perMinute) / 60_000
        maxKeysPerShard = max(1, maxKeys / 16)
        shards = (0..<16).map { _ in Shard() }
        self.now = now
    }

    /// Takes a token of this instance's share for `key`, or says how long to wait.
    func check(_ key: String) -> RateLimiter.Decision {
        let t = now()
        let k = Double(instances.load(ordering: .relaxed))
        let cap = Double(burst) / k
        let rate = perMs / k
        var h = Hasher()
        h.combine(key)
        let shard = shards[Int(UInt(bitPattern: h.finalize()) % 16)]
        return shard.table.withLock { table -> RateLimiter.Decision in
            var entry: Entry
            if let known = table.entries[key] {
                entry = known
                if t > entry.lastMs {
                    entry.allowance = min(cap, entry.allowance + Double(t - entry.lastMs) * rate)
                    entry.lastMs = t
                }
            } else {
                if table.entries.count >= maxKeysPerShard && !makeRoom(&table, now: t, cap: cap, rate: rate) {
                    return .limited(retryAfterSeconds: 1)
                }
                entry = Entry(allowance: cap, lastMs: t)
            }
            let decision: RateLimiter.Decision
            if entry.allowance >= 1 {
                entry.allowance -= 1
                entry.consumed += 1
                decision = .allowed
            } else {
                let waitMs = (1 - entry.allowance) / rate
                decision = .limited(retryAfterSeconds: max(1, Int((waitMs / 1000).rounded(.up))))
            }
            // Spent or refused: either way the next sync charges it and brings the share up to date.
            if !entry.queued {
                entry.queued = true
                table.queued.append(key)
            }
            table.entries[key] = entry
            return decision
        }
    }

    /// What each key queued since the last call spent, for the store (keys prefixed with the limit's name);
    /// the amounts are held as being sent until `apply` or `restore`.
    func drainUsage() -> [RateUsage] {
        var usage: [RateUsage] = []
        for shard in shards {
            shard.table.withLock { table in
                for key in table.queued {
                    guard var entry = table.entries[key] else { continue }
                    usage.append(
                        RateUsage(key: name + ":" + key, consumed: entry.consumed, perMinute: perMinute, burst: burst))
                    entry.sending += entry.consumed
                    entry.consumed = 0
                    entry.queued = false
                    table.entries[key] = entry
                }
                table.queued.removeAll(keepingCapacity: true)
            }
        }
        return usage
    }

    /// Sets the shares from a sync's answer: each key's allowance becomes its bucket's tokens divided by
    /// the live instances, less what was spent here since the usage was taken.
    func apply(_ result: RateSyncResult) {
        let k = max(1, result.instances)
        instances.store(k, ordering: .relaxed)
        let t = now()
        let prefix = name + ":"
        for (fullKey, tokens) in result.tokens where fullKey.hasPrefix(prefix) {
            let key = String(fullKey.dropFirst(prefix.count))
            var h = Hasher()
            h.combine(key)
            shards[Int(UInt(bitPattern: h.finalize()) % 16)].table.withLock { table in
                guard var entry = table.entries[key] else { return }
                let share = tokens / Double(k)
                entry.allowance = max(-Double(burst) / Double(k), share - Double(entry.consumed))
                entry.lastMs = t
                entry.sending = 0
                table.entries[key] = entry
            }
        }
    }

    /// Gives back what a failed sync was sending, to be sent again with the next one.
    func restore() {
        for shard in shards {
            shard.table.withLock { table in
                for (key, entry) in table.entries where entry.sending > 0 {
                    var entry = entry
                    entry.consumed += entry.sending
                    entry.sending = 0
                    if !entry.queued {
                        entry.queued = true
                        table.queued.append(key)
                    }
                    table.entries[key] = entry
                }
            }
        }
    }

    /// Keys tracked now (for tests).
    var trackedKeys: Int { shards.reduce(0) { n, s in n + s.table.withLock { $0.entries.count } } }

    /// Drops a full shard's keys whose share is full again and that have nothing to send (forgetting them
    /// is the same as keeping them); false when none could go.
    private func makeRoom(_ table: inout Table, now t: Int64, cap: Double, rate: Double) -> Bool {
        let before = table.entries.count
        table.entries = table.entries.filter { _, e in
            e.queued || e.sending > 0 || e.allowance + Double(max(0, t - e.lastMs)) * rate < cap
        }
        return table.entries.count < before
    }
}
