import Testing

@testable import System

#if canImport(Glibc)
    import Glibc
#endif

/// The monotonic clock never goes back and moves across a sleep; the wall clock is past 2024.
struct ClockTests {
    @Test func monotonicNeverGoesBack() {
        var previous = MonotonicClock.nanoseconds()
        for _ in 0..<10_000 {
            let now = MonotonicClock.nanoseconds()
            #expect(now >= previous)
            previous = now
        }
    }

    @Test func monotonicMovesAcrossASleep() {
        let before = MonotonicClock.nanoseconds()
        let coarseBefore = MonotonicClock.coarseMilliseconds()
        usleep(20_000)
        #expect(MonotonicClock.nanoseconds() - before >= 20_000_000)
        #expect(MonotonicClock.coarseMilliseconds() >= coarseBefore + 10)
    }

    @Test func wallClockIsRecent() {
        let (seconds, millis) = WallClock.now()
        #expect(seconds > 1_704_067_200)  // 2024-01-01T00:00:00Z
        #expect((0..<1000).contains(millis))
        #expect(WallClock.epochMilliseconds() >= seconds * 1000)
    }
}
