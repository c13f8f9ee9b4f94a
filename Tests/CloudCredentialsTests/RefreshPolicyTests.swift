import CloudCredentials
import Testing

/// The refresh schedule, with the random source fixed.
@Suite struct RefreshPolicyTests {
    let policy = RefreshPolicy()

    @Test func refreshesFifteenMinutesPlusJitterBeforeExpiry() {
        let now: Int64 = 1_000_000
        let expiration = now + 3600
        #expect(policy.nextRefresh(expiration: expiration, now: now, random: { _ in 0 }) == expiration - 900)
        #expect(policy.nextRefresh(expiration: expiration, now: now, random: { $0 }) == expiration - 900 - 180)
        #expect(policy.nextRefresh(expiration: expiration, now: now, random: { _ in 999_999 }) == expiration - 1080)
        #expect(policy.nextRefresh(expiration: expiration, now: now, random: { _ in -5 }) == expiration - 900)
        #expect(policy.nextRefresh(expiration: nil, now: now, random: { _ in 0 }) == nil)
    }

    @Test func neverRefreshesSoonerThanTheMinimumInterval() {
        let now: Int64 = 1_000_000
        #expect(policy.nextRefresh(expiration: now + 600, now: now, random: { _ in 0 }) == now + 60)
        #expect(policy.nextRefresh(expiration: now + 10, now: now, random: { _ in 0 }) == now + 60)
    }

    @Test func retriesWithEqualJitterDoublingToTheCap() {
        let now: Int64 = 0
        let lowest = (1...8).map { policy.nextRetry(failures: $0, now: now, random: { _ in 0 }) }
        let highest = (1...8).map { policy.nextRetry(failures: $0, now: now, random: { $0 }) }
        #expect(lowest == [5, 10, 20, 40, 80, 150, 150, 150])
        #expect(highest == [10, 20, 40, 80, 160, 300, 300, 300])
        #expect(policy.nextRetry(failures: 1000, now: now, random: { $0 }) == 300)
    }
}
