#if canImport(Glibc)
    import Glibc
#endif

/// `CLOCK_MONOTONIC`: time that only moves forward, for deadlines and durations (never for dates).
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary point (the boot, on Linux).
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// Milliseconds from the coarse clock (`CLOCK_MONOTONIC_COARSE`: cheap, about 4 ms resolution).
    public static func coarseMilliseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
