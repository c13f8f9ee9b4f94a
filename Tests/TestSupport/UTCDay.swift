import Foundation

/// For tests of per-day counts (the daily quotas): their requests must all fall on one UTC day.
public enum UTCDay {
    /// Seconds from `now` to the next UTC midnight.
    public static func secondsToMidnight(from now: Date = Date()) -> Double {
        let day = 86_400.0
        let t = now.timeIntervalSince1970
        return (t / day).rounded(.down) * day + day - t
    }

    /// Waits until the next UTC midnight has passed when it is less than `margin` seconds away (at most
    /// `margin` + 1 seconds, and only then), so that what the caller does next within `margin` seconds
    /// happens on one UTC day.
    public static func awayFromMidnight(margin: Double = 60) {
        let left = secondsToMidnight()
        guard left < margin else { return }
        Thread.sleep(forTimeInterval: left + 1)
    }
}
