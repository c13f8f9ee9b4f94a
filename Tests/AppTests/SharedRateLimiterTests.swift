import Records
import RecordsTestSupport
import Synchronization
import Testing

@testable import App

/// `SharedRateLimiter` and `RateLimitSync` over one in-memory store, three instances with one clock:
/// a caller's limit holds across the instances within the documented slack (one burst), refills at the
/// limit's rate across them, and a failed sync's consumption is charged with the next one.
@Suite("Shared rate limits (three instances, one store, injected clock)")
struct SharedRateLimiterTests {
    /// A store whose syncs fail while `failing` is set.
    final class FlakyStore: RateBucketStore {
        let inner = InMemoryRecordStore()
        let failing = Atomic<Bool>(false)

        func syncRateBuckets(instanceId: String, nowMs: Int64, liveWithinMs: Int64, usage: [RateUsage])
            throws(RecordsError) -> RateSyncResult
        {
            if failing.load(ordering: .relaxed) { throw .unavailable("test outage") }
            return try inner.syncRateBuckets(
                instanceId: instanceId, nowMs: nowMs, liveWithinMs: liveWithinMs, usage: usage)
        }

        func pruneRateBuckets(nowMs: Int64, forgetInstancesAfterMs: Int64, limit: Int) throws(RecordsError) -> Int {
            try inner.pruneRateBuckets(nowMs: nowMs, forgetInstancesAfterMs: forgetInstancesAfterMs, limit: limit)
        }
    }

    /// Three instances of a 60-per-minute limit with buckets of 10, syncing through `store`.
    static func instances(_ store: any RateBucketStore, _ clock: ManualClock)
        -> [(limiter: SharedRateLimiter, sync: RateLimitSync)]
    {
        (0..<3).map { index in
            let limiter = SharedRateLimiter(name: "issue-user", perMinute: 60, burst: 10, now: { clock.now })
            let sync = RateLimitSync(
                store: store, limiters: [limiter], instanceId: "i\(index)", intervalMs: 100, now: { clock.now })
            return (limiter, sync)
        }
    }

    /// Round-robin requests of `user`, every instance syncing after each round; how many were allowed.
    static func roundRobin(_ rounds: Int, _ user: String, _ all: [(limiter: SharedRateLimiter, sync: RateLimitSync)])
        -> Int
    {
        var allowed = 0
        for _ in 0..<rounds {
            for instance in all where instance.limiter.check(user) == .allowed { allowed += 1 }
            for instance in all { instance.sync.syncOnce() }
        }
        return allowed
    }

    @Test("a burst of 10 holds across three instances within one burst of slack; alone each would give 10")
    func limitHoldsAcrossInstances() throws {
        let clock = ManualClock()
        let store = InMemoryRecordStore()
        let all = Self.instances(store, clock)
        // Two rounds, so that each has seen the others (in the first, the first to sync sees only itself).
        for _ in 0..<2 { for instance in all { instance.sync.syncOnce() } }
        let allowed = Self.roundRobin(20, "42", all)
        #expect(allowed >= 10 && allowed <= 20, "allowed \(allowed)")
        // Per-instance buckets (the old behaviour) let 30 through.
        let separate = (0..<3).map { _ in RateLimiter(perMinute: 60, burst: 10, now: { clock.now }) }
        var alone = 0
        for _ in 0..<20 { for limiter in separate where limiter.check("42") == .allowed { alone += 1 } }
        #expect(alone == 30)
        // Another caller is not affected.
        #expect(all[1].limiter.check("7") == .allowed)
        // 10 s later the shared bucket has 10 tokens again (one a second), spread over the instances.
        clock.advance(10_000)
        let refilled = Self.roundRobin(20, "42", all)
        #expect(refilled >= 8 && refilled <= 20, "refilled \(refilled)")
        // Over both stretches, at most the single-server allowance (10 + 10) plus one burst.
        #expect(allowed + refilled <= 30)
    }

    @Test("a refused request gives Retry-After from the share's refill; a failed sync is charged later")
    func retryAfterAndFailedSync() throws {
        let clock = ManualClock()
        let store = FlakyStore()
        let all = Self.instances(store, clock)
        // Two rounds: in the first, the first instance to sync sees only itself.
        for _ in 0..<2 { for instance in all { instance.sync.syncOnce() } }
        // One instance spends its share (10 / 3) while the store is down: nothing reaches the bucket.
        store.failing.store(true, ordering: .relaxed)
        var spent = 0
        while all[0].limiter.check("u") == .allowed { spent += 1 }
        #expect(spent == 3)
        guard case .limited(let after) = all[0].limiter.check("u") else {
            Issue.record("not limited")
            return
        }
        #expect(after >= 1 && after <= 3)
        all[0].sync.syncOnce()
        #expect(all[0].sync.failures.load(ordering: .relaxed) == 1)
        // Back: the three tokens are charged, and the others' shares shrink accordingly.
        store.failing.store(false, ordering: .relaxed)
        all[0].sync.syncOnce()
        _ = all[1].limiter.check("u")
        all[1].sync.syncOnce()
        let usage = try store.inner.syncRateBuckets(
            instanceId: "probe", nowMs: clock.now, liveWithinMs: 1_000,
            usage: [RateUsage(key: "issue-user:u", consumed: 0, perMinute: 60, burst: 10)])
        #expect(usage.tokens["issue-user:u"] == 6)
    }
}
