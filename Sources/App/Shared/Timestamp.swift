import System

/// Times in API bodies, in epoch milliseconds: `System.ISO8601Timestamp` does the formatting.
enum Timestamp {
    /// Appends `"2026-11-29T08:59:31Z"` (quoted, for a JSON body) for epoch milliseconds, written
    /// without string interpolation (it is on the presign route).
    static func appendQuotedISO8601(millis: Int64, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        ISO8601Timestamp.appendSecond(
            CivilDateTime(epochSeconds: ISO8601Timestamp.split(epochMillis: millis).seconds), to: &out)
        out.append(UInt8(ascii: "Z"))
        out.append(UInt8(ascii: "\""))
    }

    /// `2026-11-29T08:59:31.123Z` for epoch milliseconds.
    static func iso8601Millis(_ millis: Int64) -> String { ISO8601Timestamp.string(epochMillis: millis) }
}
