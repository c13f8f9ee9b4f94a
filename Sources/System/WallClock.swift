#if canImport(Glibc)
    import Glibc
#endif

/// `CLOCK_REALTIME`: the time of day since the Unix epoch, for dates and timestamps. It can jump;
/// durations and deadlines use `MonotonicClock`.
public enum WallClock {
    /// Whole seconds since the epoch and the milliseconds within that second.
    public static func now() -> (seconds: Int64, millis: Int64) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec) / 1_000_000)
    }

    /// Milliseconds since the epoch.
    public static func epochMilliseconds() -> Int64 {
        let (seconds, millis) = now()
        return seconds * 1000 + millis
    }
}
