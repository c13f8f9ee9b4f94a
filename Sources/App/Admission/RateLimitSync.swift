import Records
import Synchronization
import System

/// The thread that synchronises the shared rate limits with the records store every interval: one
/// transaction per interval for every limit and key (`RateBucketStore.syncRateBuckets`), which also tells
/// how many instances share the buckets. A failed sync keeps the consumption for the next one, and the
/// limits go on with the shares they had.
final class RateLimitSync: @unchecked Sendable {
    private let store: any RateBucketStore
    private let limiters: [SharedRateLimiter]
    private let instanceId: String
    private let intervalMs: Int
    private let now: @Sendable () -> Int64
    private let lock = Monitor()
    private var stopping = false
    private var thread: PThread?
    /// Syncs that committed.
    let syncs = Atomic<Int>(0)
    /// Syncs that failed (their consumption is sent with the next one).
    let failures = Atomic<Int>(0)

    /// A sync of `limiters` through `store` every `intervalMs`, as `instanceId`.
    init(
        store: any RateBucketStore, limiters: [SharedRateLimiter], instanceId: String, intervalMs: Int,
        now: @escaping @Sendable () -> Int64
    ) {
        self.store = store
        self.limiters = limiters
        self.instanceId = instanceId
        self.intervalMs = intervalMs
        self.now = now
    }

    /// Instances not seen for this long no longer count (and are forgotten after ten times as long).
    var liveWithinMs: Int64 { Int64(max(1_000, 5 * intervalMs)) }

    /// Starts the thread.
    func start() {
        thread = PThread(name: "presignd-ratesync") { [self] in
            var rounds = 0
            while true {
                let stop = lock.withLock { () -> Bool in
                    if !stopping { _ = lock.wait(millis: intervalMs) }
                    return stopping
                }
                syncOnce()
                if stop { return }
                rounds += 1
                // About once a minute: forget full buckets and gone instances.
                if rounds % max(1, 60_000 / intervalMs) == 0 {
                    _ = try? store.pruneRateBuckets(
                        nowMs: now(), forgetInstancesAfterMs: 10 * liveWithinMs, limit: 10_000)
                }
            }
        }
    }

    /// Stops the thread after one last sync (what this instance let through is charged) and waits.
    func stop() {
        lock.withLock { stopping = true }
        lock.broadcast()
        thread?.join()
        thread = nil
    }

    /// One synchronisation of every limit.
    func syncOnce() {
        let usage = limiters.flatMap { $0.drainUsage() }
        do {
            let result = try store.syncRateBuckets(
                instanceId: instanceId, nowMs: now(), liveWithinMs: liveWithinMs, usage: usage)
            for limiter in limiters { limiter.apply(result) }
            syncs.add(1, ordering: .relaxed)
        } catch {
            for limiter in limiters { limiter.restore() }
            failures.add(1, ordering: .relaxed)
        }
    }
}
