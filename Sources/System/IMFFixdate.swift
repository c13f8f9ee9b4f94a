/// HTTP dates: the IMF-fixdate form of RFC 9110, section 5.6.7 (`Sun, 06 Nov 1994 08:49:37 GMT`), the
/// only one HTTP/1.1 servers may send: the one parser (a storage server's `Date`) and formatter (the
/// server's own `Date` header) of that format. The obsolete RFC 850 and asctime forms read as nil, as
/// does anything malformed. Pure.
public enum IMFFixdate {
    /// The month names in order.
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// The day names, Sunday first (`CivilDate.weekday`'s order).
    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `time`.
    public static func string(_ time: CivilDateTime) -> String {
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var year = String(time.year)
        while year.count < 4 { year = "0" + year }
        return "\(days[time.weekday]), \(two(time.day)) \(months[time.month - 1]) \(year) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` for `epochSeconds`.
    public static func string(epochSeconds: Int64) -> String { string(CivilDateTime(epochSeconds: epochSeconds)) }

    /// Seconds since the Unix epoch for an IMF-fixdate, or nil.
    public static func epochSeconds(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        // "Sun, 06 Nov 1994 08:49:37 GMT": 29 bytes with fixed separators.
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 32, b[7] == 32, b[11] == 32, b[16] == 32,
            b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 32,
            String(decoding: b[26...], as: UTF8.self) == "GMT",
            days.contains(String(decoding: b[0..<3], as: UTF8.self)),
            let monthIndex = months.firstIndex(of: String(decoding: b[8..<11], as: UTF8.self)),
            let day = number(b[5..<7]), let year = number(b[12..<16]), let hour = number(b[17..<19]),
            let minute = number(b[20..<22]), let second = number(b[23..<25])
        else { return nil }
        let date = CivilDate(year: year, month: monthIndex + 1, day: day)
        guard date.isValid, hour <= 23, minute <= 59, second <= 60 else { return nil }
        return CivilDateTime(date: date, hour: hour, minute: minute, second: second).epochSeconds
    }

    /// A run of ASCII digits as a number, or nil.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for d in digits {
            guard d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(d - UInt8(ascii: "0"))
        }
        return value
    }
}
