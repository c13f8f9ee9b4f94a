import Config
import Testing

@Suite struct RecordsConfigTests {
    /// Passwords in the user-info (RFC 3986, section 3.2.1) and libpq's `password=` parameter are masked.
    @Test(arguments: [
        ("sqlite:data/presignd.sqlite3", "sqlite:data/presignd.sqlite3"),
        ("postgres://db/presignd", "postgres://db/presignd"),
        ("postgres://user@db/presignd", "postgres://user@db/presignd"),
        ("postgres://user:pw@db:5432/presignd", "postgres://user:<redacted>@db:5432/presignd"),
        ("postgresql://user:p%40ss:w@db", "postgresql://user:<redacted>@db"),
        ("postgres://u:a@b@db/x", "postgres://u:<redacted>@db/x"),
        ("postgres://db/x?sslmode=require&password=pw", "postgres://db/x?sslmode=require&password=<redacted>"),
        ("postgres://db/x?PASSWORD=pw#frag", "postgres://db/x?PASSWORD=<redacted>#frag"),
        ("postgres://db?x=1&password", "postgres://db?x=1&password=<redacted>"),
        ("postgres://u:pw@db?", "postgres://u:<redacted>@db?"),
    ])
    func masksPasswords(_ url: String, _ masked: String) {
        #expect(RecordsConfig.maskPassword(in: url) == masked)
        #expect(RecordsConfig(url: url).maskedURL == masked)
    }

    @Test func printingAndDumpingMaskTheURL() {
        let records = RecordsConfig(url: "postgres://u:hunter2@db/x")
        var dumped = ""
        dump(records, to: &dumped)
        #expect(!"\(records)".contains("hunter2"))
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("postgres://u:<redacted>@db/x"))
        #expect(records.url == "postgres://u:hunter2@db/x")
    }
}
