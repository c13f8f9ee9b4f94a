import Foundation
import TestSupport
import Testing

/// The helper that keeps the daily-quota tests on one UTC day.
@Suite struct UTCDayTests {
    @Test("seconds to the next UTC midnight")
    func secondsToMidnight() {
        let day = 86_400.0
        #expect(UTCDay.secondsToMidnight(from: Date(timeIntervalSince1970: 3 * day - 10)) == 10)
        #expect(UTCDay.secondsToMidnight(from: Date(timeIntervalSince1970: 3 * day)) == day)
        #expect(UTCDay.secondsToMidnight(from: Date(timeIntervalSince1970: 3 * day + 0.25)) == day - 0.25)
    }
}
