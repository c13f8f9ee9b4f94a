/// The UTC timestamps SigV4 uses (`20261129T085931Z`, and the day `20261129`), computed from
/// epoch seconds with integer civil-calendar arithmetic: no `DateFormatter`, no time zone data.
public struct AmzDate: Sendable, Equatable {
    /// The latest instant with a four-digit year: 9999-12-31T23:59:59Z.
    public static let maximumEpochSeconds: Int64 = 253_402_300_799

    /// Whole days since 1970-01-01.
    public let daysSinceEpoch: Int64
    /// Calendar year, 1970...9999.
    public let year: Int
    /// Month, 1...12.
    public let month: Int
    /// Day of the month, 1...31.
    public let day: Int
    /// Hour, 0...23.
    public let hour: Int
    /// Minute, 0...59.
    public let minute: Int
    /// Second, 0...59 (epoch time has no leap seconds).
    public let second: Int

    /// The UTC date and time of `epochSeconds` (0...`maximumEpochSeconds`; the clock is the caller's).
    public init(epochSeconds: Int64) {
        precondition(
            (0...Self.maximumEpochSeconds).contains(epochSeconds), "epoch seconds \(epochSeconds) out of 1970...9999")
        let days = epochSeconds / 86_400
        let secondsOfDay = Int(epochSeconds % 86_400)
        daysSinceEpoch = days
        hour = secondsOfDay / 3600
        minute = secondsOfDay / 60 % 60
        second = secondsOfDay % 60
        // Civil date from a day count: shift the epoch to 0000-03-01 so that leap days end each
        // 4/100/400-year cycle, find the 400-year era, the year of the era, then the March-based
        // month from the day of that year (153 days per five months).
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * marchMonth + 2) / 5 + 1)
        month = Int(marchMonth < 10 ? marchMonth + 3 : marchMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// `YYYYMMDDTHHMMSSZ` and `YYYYMMDD` for `epochSeconds`.
    public static func format(epochSeconds: Int64) -> (amzDate: String, day: String) {
        let date = AmzDate(epochSeconds: epochSeconds)
        var bytes = [UInt8]()
        date.appendTimestamp(to: &bytes)
        return (String(decoding: bytes, as: UTF8.self), String(decoding: bytes[0..<8], as: UTF8.self))
    }

    /// Appends `YYYYMMDDTHHMMSSZ` (16 bytes).
    func appendTimestamp(to output: inout [UInt8]) {
        appendDay(to: &output)
        output.append(UInt8(ascii: "T"))
        Self.appendTwoDigits(hour, to: &output)
        Self.appendTwoDigits(minute, to: &output)
        Self.appendTwoDigits(second, to: &output)
        output.append(UInt8(ascii: "Z"))
    }

    /// Appends `YYYYMMDD` (8 bytes).
    func appendDay(to output: inout [UInt8]) {
        Self.appendTwoDigits(year / 100, to: &output)
        Self.appendTwoDigits(year % 100, to: &output)
        Self.appendTwoDigits(month, to: &output)
        Self.appendTwoDigits(day, to: &output)
    }

    /// Appends `value` (0...99) as two decimal digits.
    private static func appendTwoDigits(_ value: Int, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
        output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
    }
}
