/// ISO 8601 timestamps in the RFC 3339 profile (`2026-11-29T08:59:31Z`), read and written without
/// Foundation: the one parser and formatter of that format (credentials answers, S3's XML, API bodies,
/// log lines). The calendar is `CivilDate`'s. Pure.
///
/// Read: `YYYY-MM-DDTHH:MM:SS`, an optional fraction (dropped), then `Z` or `+HH:MM` / `-HH:MM`
/// (also `+HHMM`); `T` and `Z` in either case (RFC 3339, section 5.6). A leap second (`:60`) counts
/// as `:59`. Written: UTC with `Z`, four-digit years (0000...9999), optionally with milliseconds.
public enum ISO8601Timestamp {
    /// The epoch seconds of `text`, or nil when it is not such a timestamp.
    public static func epochSeconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20 else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), bytes[4] == UInt8(ascii: "-"), let month = number(5, 2),
            bytes[7] == UInt8(ascii: "-"), let day = number(8, 2),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"), let minute = number(14, 2),
            bytes[16] == UInt8(ascii: ":"), let second = number(17, 2)
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid, hour <= 23, minute <= 59, second <= 60 else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            guard let offsetHours = number(index + 1, 2) else { return nil }
            var minuteStart = index + 3
            if minuteStart < bytes.count, bytes[minuteStart] == UInt8(ascii: ":") { minuteStart += 1 }
            guard let offsetMinutes = number(minuteStart, 2), minuteStart + 2 == bytes.count, offsetHours <= 23,
                offsetMinutes <= 59
            else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        let time = CivilDateTime(date: date, hour: hour, minute: minute, second: min(second, 59))
        return time.epochSeconds - Int64(offsetSeconds)
    }

    /// `2026-11-29T08:59:31Z` for `epochSeconds`.
    public static func string(epochSeconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        appendSecond(CivilDateTime(epochSeconds: epochSeconds), to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `2026-11-29T08:59:31.123Z` for epoch milliseconds (before 1970 too: the second is the floor).
    public static func string(epochMillis: Int64) -> String {
        let (seconds, millis) = split(epochMillis: epochMillis)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendSecond(CivilDateTime(epochSeconds: seconds), to: &bytes)
        appendMillis(millis, to: &bytes)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whole seconds (the floor) and the milliseconds within that second, 0...999.
    @inlinable
    public static func split(epochMillis: Int64) -> (seconds: Int64, millis: Int) {
        let seconds = epochMillis >= 0 ? epochMillis / 1000 : (epochMillis - 999) / 1000
        return (seconds, Int(epochMillis - seconds * 1000))
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS` (no zone: the caller adds a fraction and `Z`), written byte by
    /// byte (it is on the issue route and in every log line). The year is written as its last four digits.
    @inlinable
    public static func appendSecond(_ time: CivilDateTime, to buffer: inout [UInt8]) {
        let year = time.year
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: year / 1000 % 10))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: year / 100 % 10))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: year / 10 % 10))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: year % 10))
        appendTwoDigits(time.month, after: UInt8(ascii: "-"), to: &buffer)
        appendTwoDigits(time.day, after: UInt8(ascii: "-"), to: &buffer)
        appendTwoDigits(time.hour, after: UInt8(ascii: "T"), to: &buffer)
        appendTwoDigits(time.minute, after: UInt8(ascii: ":"), to: &buffer)
        appendTwoDigits(time.second, after: UInt8(ascii: ":"), to: &buffer)
    }

    /// Appends `.mmm` for `millis` (clamped to 0...999).
    @inlinable
    public static func appendMillis(_ millis: Int, to buffer: inout [UInt8]) {
        let ms = max(0, min(999, millis))
        buffer.append(UInt8(ascii: "."))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: ms / 100))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: ms / 10 % 10))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: ms % 10))
    }

    /// Appends `separator` and `value` (0...99) as two digits.
    @inlinable
    static func appendTwoDigits(_ value: Int, after separator: UInt8, to buffer: inout [UInt8]) {
        buffer.append(separator)
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
        buffer.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }
}
