import SigV4
import Testing

@testable import CloudCredentials

/// The expiration parser: RFC 3339 vectors, invalid forms, and a round trip against SigV4's
/// independent civil-date arithmetic.
@Suite struct ISO8601TimestampTests {
    /// Valid timestamps and their epoch seconds (computed with `date -u -d ... +%s`).
    static let valid: [(String, Int64)] = [
        ("1970-01-01T00:00:00Z", 0),
        ("2000-02-29T12:00:00Z", 951_825_600),
        ("2019-11-20T15:43:09Z", 1_574_264_589),
        ("2019-11-20T15:43:09.000Z", 1_574_264_589),
        ("2019-11-20T15:43:09.999999Z", 1_574_264_589),
        ("2019-11-20t15:43:09z", 1_574_264_589),
        ("2019-11-21T00:43:09+09:00", 1_574_264_589),
        ("2019-11-20T10:43:09-0500", 1_574_264_589),
        ("2016-12-31T23:59:60Z", 1_483_228_799),
        ("2100-03-01T00:00:00Z", 4_107_542_400),
    ]

    /// Texts that are not such timestamps.
    static let invalid = [
        "", "2019-11-20", "2019-11-20T15:43:09", "2019-11-20 15:43:09Z", "2019-11-20T15:43Z", "2019-13-01T00:00:00Z",
        "2019-00-01T00:00:00Z", "2019-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2019-04-31T00:00:00Z",
        "2019-11-20T24:00:00Z", "2019-11-20T15:60:09Z", "2019-11-20T15:43:61Z", "2019-11-20T15:43:09.Z",
        "2019-11-20T15:43:09Zjunk", "2019-11-20T15:43:09+9:00", "2019-11-20T15:43:09+24:00", "+019-11-20T15:43:09Z",
        "2019-11-20T15:43:09 Z", "１９７０-01-01T00:00:00Z",
    ]

    @Test(arguments: valid)
    func parsesValidTimestamps(text: String, expected: Int64) {
        #expect(ISO8601Timestamp.epochSeconds(text) == expected)
    }

    @Test(arguments: invalid)
    func refusesOtherTexts(text: String) {
        #expect(ISO8601Timestamp.epochSeconds(text) == nil)
    }

    @Test func roundTripsAgainstAmzDate() {
        var state: UInt64 = 0x1505_8601
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Int64(state >> 33) % AmzDate.maximumEpochSeconds
            #expect(ISO8601Timestamp.epochSeconds(rfc3339(seconds)) == seconds, "\(seconds)")
        }
    }
}
