import System

/// Per-loop cached time: the monotonic milliseconds of the current iteration, and the wall-clock
/// strings (`Date` header, log timestamps) rebuilt only when the second changes.
struct LoopClock {
    /// Monotonic milliseconds at the last `tick()`.
    private(set) var monoMs: Int64 = 0
    /// `Date: <IMF-fixdate>\r\n`, as bytes.
    private(set) var dateHeader: [UInt8] = []
    /// `YYYY-MM-DDTHH:MM:SS` of the current second.
    private(set) var isoSecond: [UInt8] = []
    /// Milliseconds within the current second.
    private(set) var millis: Int64 = 0
    private var second: Int64 = -1

    init() { tick() }

    /// Reads the clocks; rebuilds the cached strings when the second changed.
    mutating func tick() {
        monoMs = MonotonicClock.coarseMilliseconds()
        let (s, ms) = WallClock.now()
        millis = ms
        if s != second {
            second = s
            let d = CivilDateTime(epochSeconds: s)
            dateHeader = Array("Date: \(IMFFixdate.string(d))\r\n".utf8)
            isoSecond = []
            ISO8601Timestamp.appendSecond(d, to: &isoSecond)
        }
    }
}
