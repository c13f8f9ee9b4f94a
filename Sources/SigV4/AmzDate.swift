import System

/// The UTC timestamps SigV4 uses (`20261129T085931Z`, and the day `20261129`), computed from
/// epoch seconds with integer civil-calendar arithmetic (`System.CivilDate`): no `DateFormatter`, no
/// time zone data.
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
    /// `YYYYMMDDTHHMMSSZ` as 16 bytes, written once (the signer copies it five times per URL).
    private var text: (UInt64, UInt64) = (0, 0)

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
        let date = CivilDate(daysSinceEpoch: days)
        year = date.year
        month = date.month
        day = date.day
        let (year, month, day, hour, minute, second) = (year, month, day, hour, minute, second)
        withUnsafeMutableBytes(of: &text) { text in
            /// Writes `value` (0...99) as two digits at `position`.
            func twoDigits(_ value: Int, at position: Int) {
                text[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
                text[position + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
            }
            twoDigits(year / 100, at: 0)
            twoDigits(year % 100, at: 2)
            twoDigits(month, at: 4)
            twoDigits(day, at: 6)
            text[8] = UInt8(ascii: "T")
            twoDigits(hour, at: 9)
            twoDigits(minute, at: 11)
            twoDigits(second, at: 13)
            text[15] = UInt8(ascii: "Z")
        }
    }

    /// Epoch seconds of `YYYYMMDDTHHMMSSZ` (1970...9999), or nil: the one reader of the format.
    public static func epochSeconds(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(4..<6), let day = number(6..<8),
            let hour = number(9..<11), let minute = number(11..<13), let second = number(13..<15),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        guard date.isValid else { return nil }
        let epoch = CivilDateTime(date: date, hour: hour, minute: minute, second: second).epochSeconds
        guard (0...maximumEpochSeconds).contains(epoch) else { return nil }
        return epoch
    }

    /// `YYYYMMDDTHHMMSSZ` and `YYYYMMDD` for `epochSeconds`.
    public static func format(epochSeconds: Int64) -> (amzDate: String, day: String) {
        let date = AmzDate(epochSeconds: epochSeconds)
        var bytes = [UInt8]()
        date.appendTimestamp(to: &bytes)
        return (String(decoding: bytes, as: UTF8.self), String(decoding: bytes[0..<8], as: UTF8.self))
    }

    /// Writes `YYYYMMDDTHHMMSSZ` (16 bytes).
    @inline(__always)
    func appendTimestamp(to output: inout some ByteSink) {
        withUnsafeBytes(of: text) {
            output.write(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 16))
        }
    }

    /// Writes `YYYYMMDDT` up to the day: `YYYYMMDD` (8 bytes).
    @inline(__always)
    func appendDay(to output: inout some ByteSink) {
        withUnsafeBytes(of: text) {
            output.write(UnsafeBufferPointer(start: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: 8))
        }
    }

    /// Equal dates have equal fields (the text follows from them).
    public static func == (lhs: AmzDate, rhs: AmzDate) -> Bool {
        lhs.daysSinceEpoch == rhs.daysSinceEpoch && lhs.hour == rhs.hour && lhs.minute == rhs.minute
            && lhs.second == rhs.second
    }
}
