import System

/// A point on the monotonic clock by which an operation must finish.
struct Deadline: Sendable, Comparable {
    /// Monotonic nanoseconds.
    let nanoseconds: UInt64

    /// The deadline `milliseconds` from now.
    static func after(milliseconds: Int) -> Deadline {
        Deadline(nanoseconds: Self.nowNanoseconds() &+ UInt64(max(0, milliseconds)) &* 1_000_000)
    }

    /// The earlier of two deadlines.
    static func < (lhs: Deadline, rhs: Deadline) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Milliseconds left, rounded up, 0 once passed: a `poll` timeout.
    var remainingMilliseconds: Int32 {
        let now = Self.nowNanoseconds()
        guard nanoseconds > now else { return 0 }
        return Int32(clamping: (nanoseconds - now + 999_999) / 1_000_000)
    }

    /// True once the deadline is reached.
    var hasPassed: Bool { Self.nowNanoseconds() >= nanoseconds }

    /// `MonotonicClock` in nanoseconds (the clock deadlines are on).
    static func nowNanoseconds() -> UInt64 { MonotonicClock.nanoseconds() }
}
