import Synchronization
import Testing

@testable import App

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let ms = Atomic<Int64>(1_000_000)
    func advance(_ d: Int64) { ms.wrappingAdd(d, ordering: .relaxed) }
    var now: Int64 { ms.load(ordering: .relaxed) }
}

@Suite("Rate limiter (token bucket, injected clock)")
struct RateLimiterTests {
    @Test("a burst is allowed, the next request waits, and tokens come back at the configured rate")
    func bucket() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 3, now: { clock.now })
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .limited(retryAfterSeconds: 1))
        #expect(limiter.check("other") == .allowed, "keys are independent")
        clock.advance(999)
        #expect(limiter.check("u") == .limited(retryAfterSeconds: 1))
        clock.advance(2)
        #expect(limiter.check("u") == .allowed)
        #expect(limiter.check("u") == .limited(retryAfterSeconds: 1))
        clock.advance(10_000)
        for _ in 0..<3 { #expect(limiter.check("u") == .allowed) }  // refilled only up to the burst
        #expect(limiter.check("u") != .allowed)
    }

    @Test("Retry-After reflects a slow rate")
    func retryAfter() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 2, burst: 1, now: { clock.now })
        #expect(limiter.check("k") == .allowed)
        #expect(limiter.check("k") == .limited(retryAfterSeconds: 30))
        clock.advance(20_000)
        #expect(limiter.check("k") == .limited(retryAfterSeconds: 10))
    }

    @Test("memory stays bounded under a flood of distinct keys")
    func bounded() {
        let clock = ManualClock()
        let limiter = RateLimiter(perMinute: 60, burst: 5, maxKeys: 1600, now: { clock.now })
        for i in 0..<50_000 {
            _ = limiter.check("ip-\(i)")
            if i % 1000 == 0 { clock.advance(1) }
        }
        #expect(limiter.trackedKeys <= 1600 + 16)
    }
}
