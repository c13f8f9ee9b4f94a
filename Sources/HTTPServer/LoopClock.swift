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
        monoMs = Sys.monotonicMillisCoarse()
        let (s, ms) = Sys.wallClock()
        millis = ms
        if s != second {
            second = s
            let d = HTTPDate.civil(fromEpochSeconds: s)
            dateHeader = Array("Date: \(HTTPDate.imfFixdate(d))\r\n".utf8)
            isoSecond = Array(HTTPDate.iso8601Second(d).utf8)
        }
    }
}

/// Calendar arithmetic for HTTP dates, without Foundation.
public enum HTTPDate {
    /// A broken-down UTC time.
    public struct Civil: Equatable, Sendable {
        public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int  // 0 = Sunday
    }

    /// Converts epoch seconds to a civil UTC date (proleptic Gregorian; H. Hinnant's days-from-civil inverse).
    public static func civil(fromEpochSeconds t: Int64) -> Civil {
        var days = t / 86_400
        var rem = t % 86_400
        if rem < 0 {
            rem += 86_400
            days -= 1
        }
        let weekday = Int((days % 7 + 11) % 7)  // 1970-01-01 was a Thursday (4)
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        var y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        if m <= 2 { y += 1 }
        return Civil(
            year: Int(y), month: Int(m), day: Int(d), hour: Int(rem / 3600), minute: Int(rem % 3600 / 60),
            second: Int(rem % 60), weekday: weekday)
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (RFC 9110, section 5.6.7).
    public static func imfFixdate(_ c: Civil) -> String {
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return
            "\(days[c.weekday]), \(two(c.day)) \(months[c.month - 1]) \(c.year) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) GMT"
    }

    /// `1994-11-06T08:49:37` (no zone; the caller appends fraction and `Z`).
    public static func iso8601Second(_ c: Civil) -> String {
        "\(c.year)-\(two(c.month))-\(two(c.day))T\(two(c.hour)):\(two(c.minute)):\(two(c.second))"
    }

    private static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
