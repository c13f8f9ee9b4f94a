import Testing

@testable import System

/// Days from civil and civil from days (H. Hinnant's algorithms), against dates worked out by hand and
/// checked with GNU `date -u -d @<seconds>`.
struct CivilDateTests {
    /// (days since 1970-01-01, year, month, day, weekday with 0 = Sunday).
    static let table: [(days: Int64, year: Int, month: Int, day: Int, weekday: Int)] = [
        (0, 1970, 1, 1, 4),  // the epoch, a Thursday
        (-1, 1969, 12, 31, 3),
        (-365, 1969, 1, 1, 3),
        (-719_468, 0, 3, 1, 3),  // the algorithms' own origin, 0000-03-01
        (-719_469, 0, 2, 29, 2),  // year 0 is a leap year (divisible by 400)
        (-719_528, 0, 1, 1, 6),
        (-25_567, 1900, 1, 1, 1),  // 1900: not a leap year
        (-25_509, 1900, 2, 28, 3),
        (-25_508, 1900, 3, 1, 4),
        (59, 1970, 3, 1, 0),
        (789, 1972, 2, 29, 2),  // the first leap day after the epoch
        (10_956, 1999, 12, 31, 5),
        (10_957, 2000, 1, 1, 6),
        (11_016, 2000, 2, 29, 2),  // 2000: divisible by 400, a leap year
        (11_017, 2000, 3, 1, 3),
        (19_782, 2024, 2, 29, 4),
        (20_454, 2026, 1, 1, 4),
        (47_540, 2100, 2, 28, 0),  // 2100: divisible by 100 only, not a leap year
        (47_541, 2100, 3, 1, 1),
        (2_932_896, 9999, 12, 31, 5),
        (-141_427, 1582, 10, 15, 5),  // the first Gregorian day
    ]

    @Test func table() {
        for row in Self.table {
            let date = CivilDate(daysSinceEpoch: row.days)
            #expect(date == CivilDate(year: row.year, month: row.month, day: row.day), "day \(row.days)")
            #expect(CivilDate(year: row.year, month: row.month, day: row.day).daysSinceEpoch == row.days)
            #expect(date.weekday == row.weekday, "weekday of \(row.year)-\(row.month)-\(row.day)")
            #expect(date.isValid)
        }
    }

    /// Every day over 1,200 years around the epoch converts both ways, and consecutive days follow.
    @Test func roundTripsAndFollowsEachDay() {
        var previous = CivilDate(daysSinceEpoch: -220_000)
        for days in Int64(-219_999)...220_000 {
            let date = CivilDate(daysSinceEpoch: days)
            let next =
                previous.day < CivilDate.daysIn(month: previous.month, year: previous.year)
                ? CivilDate(year: previous.year, month: previous.month, day: previous.day + 1)
                : previous.month < 12
                    ? CivilDate(year: previous.year, month: previous.month + 1, day: 1)
                    : CivilDate(year: previous.year + 1, month: 1, day: 1)
            if date != next || date.daysSinceEpoch != days {
                Issue.record("day \(days): \(date) does not follow \(previous) or does not convert back")
                return
            }
            previous = date
        }
    }

    @Test func leapYears() {
        for year in [1600, 1972, 1996, 2000, 2024, 2400, 0, -4] { #expect(CivilDate.isLeapYear(year), "\(year)") }
        for year in [1700, 1800, 1900, 1970, 2023, 2100, 2200, -1] { #expect(!CivilDate.isLeapYear(year), "\(year)") }
        #expect(CivilDate.daysIn(month: 2, year: 2000) == 29)
        #expect(CivilDate.daysIn(month: 2, year: 2100) == 28)
        #expect(CivilDate.daysIn(month: 4, year: 2026) == 30)
        #expect(CivilDate.daysIn(month: 12, year: 2026) == 31)
    }

    @Test func invalidDates() {
        #expect(!CivilDate(year: 2100, month: 2, day: 29).isValid)
        #expect(!CivilDate(year: 2026, month: 4, day: 31).isValid)
        #expect(!CivilDate(year: 2026, month: 13, day: 1).isValid)
        #expect(!CivilDate(year: 2026, month: 0, day: 1).isValid)
        #expect(!CivilDate(year: 2026, month: 1, day: 0).isValid)
        #expect(CivilDate(year: 2000, month: 2, day: 29).isValid)
    }

    /// Epoch seconds broken down, before the epoch included (floor, not truncation).
    @Test func dateTimes() {
        let rfc9110 = CivilDateTime(epochSeconds: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(
            rfc9110 == CivilDateTime(date: CivilDate(year: 1994, month: 11, day: 6), hour: 8, minute: 49, second: 37))
        #expect(rfc9110.weekday == 0)
        #expect(rfc9110.epochSeconds == 784_111_777)
        let beforeEpoch = CivilDateTime(epochSeconds: -1)
        #expect(
            beforeEpoch
                == CivilDateTime(date: CivilDate(year: 1969, month: 12, day: 31), hour: 23, minute: 59, second: 59))
        #expect(beforeEpoch.epochSeconds == -1)
        let leapDay = CivilDateTime(epochSeconds: 951_868_799)  // 2000-02-29T23:59:59Z
        #expect((leapDay.year, leapDay.month, leapDay.day, leapDay.hour) == (2000, 2, 29, 23))
        #expect(CivilDateTime(epochSeconds: 951_868_800).date == CivilDate(year: 2000, month: 3, day: 1))
        for seconds in stride(from: Int64(-100_000_000), through: 100_000_000, by: 86_399) {
            #expect(CivilDateTime(epochSeconds: seconds).epochSeconds == seconds)
        }
    }
}
