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
            dateHeader = Array("Date: \(HTTPDate.imfFixdate(d))\r\n".utf8)
            isoSecond = Array(HTTPDate.iso8601Second(d).utf8)
        }
    }
}

/// HTTP and log date formats of a `CivilDateTime`, without Foundation.
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110, section 5.6.7).
    public static func imfFixdate(_ c: CivilDateTime) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return
            "\(days[c.weekday]), \(two(c.day)) \(months[c.month - 1]) \(c.year) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }

    /// `1994-11-06T08:49:37` (no zone; the caller appends fraction and `Z`).
    public static func iso8601Second(_ c: CivilDateTime) -> String {
        "\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))"
    }

    private static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
