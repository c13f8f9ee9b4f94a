import Foundation
import TestSupport
import Testing

@testable import Records

/// The contract of `RateBucketStore` (schema version 8), on every store: buckets start full, refill at
/// their rate up to their capacity, go into debt at most one capacity deep; instances are counted while
/// they sync; full buckets and gone instances are pruned.
@Suite(.blocking) struct RateBucketStoreConformanceTests {
    /// A usage of `consumed` tokens of a 60-per-minute bucket of 10 (one token a second).
    static func usage(_ key: String, _ consumed: Int64) -> RateUsage {
        RateUsage(key: key, consumed: consumed, perMinute: 60, burst: 10)
    }

    /// Charges, refills and the debt floor, in tokens (one a second refills).
    @Test(arguments: StoreKind.kinds)
    func bucketsRefillAndGoIntoBoundedDebt(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        func sync(_ nowMs: Int64, _ items: [RateUsage]) throws -> RateSyncResult {
            try store.syncRateBuckets(instanceId: "a", nowMs: nowMs, liveWithinMs: 1_000, usage: items)
        }
        #expect(try sync(0, [Self.usage("u:1", 4)]).tokens == ["u:1": 6])
        // 2 s later: 2 tokens back, 3 spent.
        #expect(try sync(2_000, [Self.usage("u:1", 3)]).tokens == ["u:1": 5])
        // An hour later the bucket is full again, never more than its capacity.
        #expect(try sync(3_602_000, [Self.usage("u:1", 0)]).tokens == ["u:1": 10])
        // Overspent: debt, at most one capacity deep.
        #expect(try sync(3_602_000, [Self.usage("u:1", 15)]).tokens == ["u:1": -5])
        #expect(try sync(3_602_000, [Self.usage("u:1", 50)]).tokens == ["u:1": -10])
        // An earlier clock (another instance's) refills nothing and moves no time back.
        #expect(try sync(3_601_000, [Self.usage("u:1", 0)]).tokens == ["u:1": -10])
        #expect(try sync(3_603_000, [Self.usage("u:1", 0)]).tokens == ["u:1": -9])
        // Several keys in one sync are independent; a read-only usage (0) of a new key reads it full.
        let both = try sync(3_603_000, [Self.usage("u:2", 1), Self.usage("a:127.0.0.1", 0)])
        #expect(both.tokens == ["u:2": 9, "a:127.0.0.1": 10])
    }

    /// The instances that synced within the window are counted; one gone quiet drops out, and pruning
    /// forgets it and the buckets that are full again.
    @Test(arguments: StoreKind.kinds)
    func instancesAreCountedWhileTheySync(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let store = test.shared
        _ = try store.syncRateBuckets(instanceId: "a", nowMs: 1_000, liveWithinMs: 500, usage: [Self.usage("k", 10)])
        _ = try store.syncRateBuckets(instanceId: "b", nowMs: 1_100, liveWithinMs: 500, usage: [])
        let three = try store.syncRateBuckets(
            instanceId: "c", nowMs: 1_200, liveWithinMs: 500, usage: [Self.usage("j", 1)])
        #expect(three.instances == 3)
        let later = try store.syncRateBuckets(instanceId: "c", nowMs: 1_550, liveWithinMs: 500, usage: [])
        #expect(later.instances == 2)
        // At 20 s "j" (9 + 18.8) is full, "k" (0 + 19) too; at 5 s "k" is not.
        #expect(try store.pruneRateBuckets(nowMs: 5_000, forgetInstancesAfterMs: 100_000, limit: 100) == 1)
        #expect(try store.pruneRateBuckets(nowMs: 20_000, forgetInstancesAfterMs: 100_000, limit: 100) == 1)
        #expect(
            try store.syncRateBuckets(instanceId: "c", nowMs: 20_000, liveWithinMs: 100_000, usage: []).instances == 3)
        _ = try store.pruneRateBuckets(nowMs: 20_000, forgetInstancesAfterMs: 18_500, limit: 100)
        #expect(
            try store.syncRateBuckets(instanceId: "c", nowMs: 20_000, liveWithinMs: 100_000, usage: []).instances == 1)
        // A pruned bucket starts full again.
        #expect(
            try store.syncRateBuckets(instanceId: "c", nowMs: 20_000, liveWithinMs: 1, usage: [Self.usage("k", 1)])
                .tokens == ["k": 9])
    }

    /// Four syncing threads on two store objects charge one bucket 25 times each, with no refill: every
    /// charge counts once (the bucket ends 100 below where it started, within its debt floor).
    @Test(arguments: StoreKind.databases)
    func concurrentChargesAllCount(kind: StoreKind) throws {
        let test = try TestStore.make(kind)
        defer { test.close() }
        let stores: [any SharedStateStore] = [test.shared, try test.reopen() as! any SharedStateStore]
        let big = RateUsage(key: "shared", consumed: 0, perMinute: 1, burst: 1_000)
        _ = try stores[0].syncRateBuckets(instanceId: "x", nowMs: 0, liveWithinMs: 1, usage: [big])
        runConcurrently(4) { index in
            for _ in 0..<25 {
                do {
                    _ = try stores[index % 2].syncRateBuckets(
                        instanceId: "i\(index)", nowMs: 0, liveWithinMs: 1_000,
                        usage: [
                            RateUsage(key: "shared", consumed: 1, perMinute: 1, burst: 1_000),
                            RateUsage(key: "other-\(index)", consumed: 1, perMinute: 1, burst: 1_000),
                        ])
                } catch {
                    Issue.record("sync failed: \(error)")
                }
            }
        }
        let end = try stores[1].syncRateBuckets(instanceId: "x", nowMs: 0, liveWithinMs: 1_000, usage: [big])
        #expect(end.tokens["shared"] == 900)
        #expect(end.instances == 5)
    }
}
