import System

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
