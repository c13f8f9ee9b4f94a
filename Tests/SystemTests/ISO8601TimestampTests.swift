import Testing

@testable import System

/// ISO 8601 / RFC 3339 timestamps: the RFC's own examples, credentials-service forms, invalid forms,
/// formatting, and a round trip.
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
        // RFC 3339, section 5.8 (epoch seconds from Python's datetime.fromisoformat(...).timestamp()).
        ("1985-04-12T23:20:50.52Z", 482_196_050),
        ("1996-12-19T16:39:57-08:00", 851_042_397),
        ("1990-12-31T23:59:60Z", 662_687_999),
        ("1990-12-31T15:59:60-08:00", 662_687_999),
        ("1937-01-01T12:00:27.87+00:20", -1_041_337_173),
        // S3's LastModified and Initiated (ListParts, ListMultipartUploads), and its ServerTime.
        ("2026-12-01T10:39:39.123Z", 1_796_121_579),
        ("1969-12-31T23:59:59Z", -1),
        ("9999-12-31T23:59:59Z", 253_402_300_799),
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

    /// (epoch milliseconds, text): whole seconds, milliseconds, before 1970 (the second is the floor).
    static let formatted: [(Int64, String, String)] = [
        (0, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"),
        (951_782_400_000, "2000-02-29T00:00:00Z", "2000-02-29T00:00:00.000Z"),
        (1_795_942_771_123, "2026-11-29T08:59:31Z", "2026-11-29T08:59:31.123Z"),
        (-1, "1969-12-31T23:59:59Z", "1969-12-31T23:59:59.999Z"),
        (253_402_300_799_999, "9999-12-31T23:59:59Z", "9999-12-31T23:59:59.999Z"),
        (-62_135_596_800_000, "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
    ]

    @Test(arguments: formatted)
    func formats(millis: Int64, seconds: String, withMillis: String) {
        #expect(ISO8601Timestamp.string(epochSeconds: ISO8601Timestamp.split(epochMillis: millis).seconds) == seconds)
        #expect(ISO8601Timestamp.string(epochMillis: millis) == withMillis)
        #expect(ISO8601Timestamp.epochSeconds(withMillis) == ISO8601Timestamp.split(epochMillis: millis).seconds)
    }

    @Test func roundTrips() {
        var state: UInt64 = 0x1505_8601
        for _ in 0..<5000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let seconds = Int64(state >> 33) % 253_402_300_799
            #expect(
                ISO8601Timestamp.epochSeconds(ISO8601Timestamp.string(epochSeconds: seconds)) == seconds, "\(seconds)")
        }
    }
}
