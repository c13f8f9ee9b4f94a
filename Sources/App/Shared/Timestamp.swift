import HTTPServer
import System

/// Formatting of times for API bodies.
enum Timestamp {
    /// Appends `"2026-11-29T08:59:31Z"` (quoted, for a JSON body) for epoch milliseconds, written
    /// without string interpolation (it is on the presign route).
    static func appendQuotedISO8601(millis: Int64, to out: inout [UInt8]) {
        let s = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let c = CivilDateTime(epochSeconds: s)
        out.append(UInt8(ascii: "\""))
        let y = c.year
        out.append(UInt8(ascii: "0") + UInt8(y / 1000 % 10))
        out.append(UInt8(ascii: "0") + UInt8(y / 100 % 10))
        out.append(UInt8(ascii: "0") + UInt8(y / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(y % 10))
        appendTwoDigits(c.month, after: UInt8(ascii: "-"), to: &out)
        appendTwoDigits(c.day, after: UInt8(ascii: "-"), to: &out)
        appendTwoDigits(c.hour, after: UInt8(ascii: "T"), to: &out)
        appendTwoDigits(c.minute, after: UInt8(ascii: ":"), to: &out)
        appendTwoDigits(c.second, after: UInt8(ascii: ":"), to: &out)
        out.append(UInt8(ascii: "Z"))
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `separator` and `value` (0...99) as two digits.
    @inline(__always)
    private static func appendTwoDigits(_ value: Int, after separator: UInt8, to out: inout [UInt8]) {
        out.append(separator)
        out.append(UInt8(ascii: "0") + UInt8(value / 10))
        out.append(UInt8(ascii: "0") + UInt8(value % 10))
    }

    /// `2026-11-29T08:59:31.123Z` for epoch milliseconds.
    static func iso8601Millis(_ millis: Int64) -> String {
        let s = millis >= 0 ? millis / 1000 : (millis - 999) / 1000
        let ms = Int(millis - s * 1000)
        let frac = ms < 10 ? "00\(ms)" : ms < 100 ? "0\(ms)" : "\(ms)"
        return HTTPDate.iso8601Second(CivilDateTime(epochSeconds: s)) + "." + frac + "Z"
    }
}
