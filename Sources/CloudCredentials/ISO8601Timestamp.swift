/// Reads the expiration times of credentials answers (RFC 3339, the profile of ISO 8601 that STS,
/// IMDS and the container agents use) as epoch seconds. Pure: integer civil-calendar arithmetic.
///
/// Accepted: `YYYY-MM-DDTHH:MM:SS`, an optional fraction (dropped), then `Z` or `+HH:MM` / `-HH:MM`
/// (also `+HHMM`); `T` and `Z` in either case. A leap second (`:60`) counts as `:59`.
enum ISO8601Timestamp {
    /// The epoch seconds of `text`, or nil when it is not such a timestamp.
    static func epochSeconds(_ text: String) -> Int64? {
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
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
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
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(hour * 3600 + minute * 60 + min(second, 59))
        return days * 86_400 + seconds - Int64(offsetSeconds)
    }

    /// Days from 1970-01-01 to the civil date (proleptic Gregorian): shift to a March-based year so
    /// that the leap day ends each year, then count 400-year eras, years of the era and days.
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int64 {
        let shiftedYear = Int64(month <= 2 ? year - 1 : year)
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let marchMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * marchMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The number of days in `month` of `year`.
    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
