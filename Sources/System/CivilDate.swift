/// A day of the proleptic Gregorian calendar, and its conversion to and from a count of days since
/// 1970-01-01, with Howard Hinnant's `days_from_civil` / `civil_from_days` algorithms
/// (http://howardhinnant.github.io/date_algorithms.html): integer arithmetic, no tables, no time zones.
///
/// Both conversions shift the year to start on 1 March, so the leap day ends each 4/100/400-year cycle,
/// and split the day count into 400-year eras of 146,097 days; negative day counts (before 1970) work.
public struct CivilDate: Hashable, Sendable {
    /// The year (astronomical: 0 is 1 BC).
    public var year: Int
    /// The month, 1...12.
    public var month: Int
    /// The day of the month, 1...31.
    public var day: Int

    /// The date `year`-`month`-`day`, as given (see `isValid`).
    @inlinable
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `daysSinceEpoch` days after 1970-01-01 (before it when negative).
    @inlinable
    public init(daysSinceEpoch: Int64) {
        let shifted = daysSinceEpoch + 719_468  // days since 0000-03-01
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097  // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365  // 0...399
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // 0...365, from 1 March
        let marchMonth = (5 * dayOfYear + 2) / 153  // 0...11, 0 = March
        day = Int(dayOfYear - (153 * marchMonth + 2) / 5 + 1)
        month = Int(marchMonth < 10 ? marchMonth + 3 : marchMonth - 9)
        year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date (negative before it); meaningful for valid dates.
    @inlinable
    public var daysSinceEpoch: Int64 {
        let marchYear = Int64(month <= 2 ? year - 1 : year)
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400  // 0...399
        let dayOfYear = (153 * Int64(month > 2 ? month - 3 : month + 9) + 2) / 5 + Int64(day) - 1  // 0...365
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear  // 0...146096
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether the month is 1...12 and the day exists in that month.
    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysIn(month: month, year: year)
    }

    /// The day of the week, 0 = Sunday ... 6 = Saturday.
    public var weekday: Int { Self.weekday(daysSinceEpoch: daysSinceEpoch) }

    /// The day of the week of a day count, 0 = Sunday ... 6 = Saturday (1970-01-01 was a Thursday).
    @inlinable
    public static func weekday(daysSinceEpoch days: Int64) -> Int {
        Int(days >= -4 ? (days + 4) % 7 : (days + 5) % 7 + 6)
    }

    /// Whether `year` is a Gregorian leap year.
    @inlinable
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days of `month` (1...12) in `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        precondition((1...12).contains(month), "month \(month) is not 1...12")
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
