import Testing

@testable import System

/// HTTP dates as storage servers send them (IMF-fixdate, RFC 9110 section 5.6.7). Expected values from
/// Python's `calendar.timegm(time.strptime(text, "%a, %d %b %Y %H:%M:%S GMT"))`.
@Suite struct IMFFixdateTests {
    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", Int64(784_111_777)),  // RFC 9110's own example
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
        ("Thu, 29 Feb 2024 12:00:00 GMT", 1_709_208_000),
        ("Fri, 31 Dec 1999 23:59:59 GMT", 946_684_799),
        ("Sat, 01 Jan 2000 00:00:00 GMT", 946_684_800),
        ("Sun, 29 Nov 2026 14:52:10 GMT", 1_795_963_930),
        ("Wed, 01 Mar 2100 00:00:00 GMT", 4_107_542_400),  // 2100 is not a leap year
        ("Wed, 31 Dec 1969 23:59:59 GMT", -1),
    ])
    func imfFixdates(text: String, seconds: Int64) {
        #expect(IMFFixdate.epochSeconds(text) == seconds)
    }

    @Test(arguments: [
        "Sunday, 06-Nov-94 08:49:37 GMT",  // RFC 850 (obsolete)
        "Sun Nov  6 08:49:37 1994",  // asctime (obsolete)
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37 gmt", "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 08:49:37 GMT ", "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Noo 1994 08:49:37 GMT",
        "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 29 Feb 2100 08:49:37 GMT", "Sun, 00 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT", "Sun, 06 Nov 19x4 08:49:37 GMT",
        "Sun; 06 Nov 1994 08:49:37 GMT", "", "Sun, 06 Nov 1994 08:49:3\u{7}GMT",
    ])
    func otherFormsAndImpossibleDatesAreNil(text: String) {
        #expect(IMFFixdate.epochSeconds(text) == nil)
    }

    @Test(arguments: [
        (Int64(784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),  // RFC 9110's own example
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (1_709_208_000, "Thu, 29 Feb 2024 12:00:00 GMT"),
        (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    ])
    func formats(seconds: Int64, text: String) {
        #expect(IMFFixdate.string(epochSeconds: seconds) == text)
        #expect(IMFFixdate.epochSeconds(IMFFixdate.string(epochSeconds: seconds)) == seconds)
    }
}
