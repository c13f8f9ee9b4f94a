import Testing

@testable import SigV4

/// `AmzDate` against known instants (AWS's examples, leap days, the ends of the range) and against
/// a day-by-day walk of the Gregorian calendar written independently here.
struct AmzDateTests {
    /// Epoch seconds and the SigV4 timestamp; the epoch values were computed with Python's
    /// `calendar.timegm`, the 2013 and 2015 instants are those of AWS's SigV4 documentation examples.
    static let table: [(Int64, String)] = [
        (0, "19700101T000000Z"),
        (1_369_353_600, "20130524T000000Z"),
        (1_440_938_160, "20150830T123600Z"),
        (1_795_942_771, "20261129T085931Z"),
        (951_782_400, "20000229T000000Z"),
        (951_868_799, "20000229T235959Z"),
        (946_684_799, "19991231T235959Z"),
        (1_709_164_800, "20240229T000000Z"),
        (4_107_542_400, "21000301T000000Z"),
        (4_107_542_399, "21000228T235959Z"),
        (253_402_300_799, "99991231T235959Z"),
    ]

    @Test("known instants", arguments: table)
    func knownInstants(epochSeconds: Int64, expected: String) {
        let formatted = AmzDate.format(epochSeconds: epochSeconds)
        #expect(formatted.amzDate == expected)
        #expect(formatted.day == String(expected.prefix(8)))
    }

    @Test("every day from 1970 to 2400 matches a calendar walk")
    func calendarWalk() {
        var year = 1970
        var month = 1
        var day = 1
        for days in Int64(0)..<Int64(157_000) {
            let date = AmzDate(epochSeconds: days * 86_400 + 45_296)
            guard date.year == year, date.month == month, date.day == day, date.hour == 12, date.minute == 34,
                date.second == 56
            else {
                Issue.record("day \(days): got \(date), expected \(year)-\(month)-\(day)")
                return
            }
            day += 1
            if day > Self.daysIn(month: month, year: year) {
                day = 1
                month += 1
                if month > 12 {
                    month = 1
                    year += 1
                }
            }
        }
        #expect(year == 2399)
    }

    /// The length of a month in the proleptic Gregorian calendar.
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
