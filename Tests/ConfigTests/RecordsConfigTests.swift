import Config
import Testing

@Suite struct RecordsConfigTests {
    /// `records.url` forms and what they parse to (the forms README.md and docs/records.md document).
    static let locations: [(url: String, location: RecordsLocation, shown: String)] = [
        ("sqlite:data/presignd.sqlite3", .sqlite(path: "data/presignd.sqlite3"), "sqlite:data/presignd.sqlite3"),
        ("sqlite:/var/lib/presignd/r.db", .sqlite(path: "/var/lib/presignd/r.db"), "sqlite:/var/lib/presignd/r.db"),
        ("sqlite:///var/lib/presignd/r.db", .sqlite(path: "/var/lib/presignd/r.db"), "sqlite:/var/lib/presignd/r.db"),
    ]

    @Test(arguments: locations.indices)
    func sqliteURLsParseToTheirPath(index: Int) throws {
        let vector = Self.locations[index]
        let location = try RecordsLocation(parsing: vector.url)
        #expect(location == vector.location)
        #expect(location.redacted == vector.shown)
        #expect("\(location)" == vector.shown)
    }

    /// PostgreSQL URLs, as written and redacted: passwords in the user-info (RFC 3986, section 3.2.1)
    /// and in libpq's `password=` parameter (PostgreSQL docs, "Connection URIs"), percent-encoded or not.
    static let postgresURLs: [(url: String, redacted: String)] = [
        ("postgres://db/presignd", "postgres://db/presignd"),
        ("postgres://user@db/presignd", "postgres://user@db/presignd"),
        ("postgres://user:pw@db:5432/presignd", "postgres://user:<redacted>@db:5432/presignd"),
        ("postgresql://user:p%40ss:w@db", "postgresql://user:<redacted>@db"),
        ("postgresql://app:p%40ss%2Fw@h/db?sslmode=require", "postgresql://app:<redacted>@h/db?sslmode=require"),
        ("postgres://u:a@b@db/x", "postgres://u:<redacted>@db/x"),
        ("postgres://db/x?sslmode=require&password=pw", "postgres://db/x?sslmode=require&password=<redacted>"),
        ("postgres://db/x?PASSWORD=pw#frag", "postgres://db/x?PASSWORD=<redacted>#frag"),
        ("postgres://db?x=1&password", "postgres://db?x=1&password=<redacted>"),
        ("postgres://u:pw@db?", "postgres://u:<redacted>@db?"),
        ("postgres://app:s3cret@/db?host=/run/postgresql", "postgres://app:<redacted>@/db?host=/run/postgresql"),
        ("postgres:///presignd", "postgres:///presignd"),
    ]

    @Test(arguments: postgresURLs.indices)
    func postgresURLsParseAndPrintRedacted(index: Int) throws {
        let vector = Self.postgresURLs[index]
        let location = try RecordsLocation(parsing: vector.url)
        guard case .postgres(let url) = location else { return #expect(Bool(false), "not PostgreSQL: \(location)") }
        #expect(url.connectionString == vector.url)
        #expect(url.redacted == vector.redacted)
        #expect(PostgresURL.redact(vector.url) == vector.redacted)
        #expect(location.redacted == vector.redacted)
        var dumped = ""
        dump(location, to: &dumped)
        #expect("\(location)" == vector.redacted)
        #expect(!dumped.contains("pw") && !dumped.contains("s3cret") && !dumped.contains("p%40ss"))
    }

    /// URLs that name no store: one `records.url` problem each, never showing the password or a value
    /// without a scheme.
    @Test(arguments: [
        ("sqlite:", "without a file path"), ("sqlite:///", "without a file path"),
        ("sqlite:dir/", "without a file path"),
        ("postgres://", "without a host"), ("postgresql://", "without a host"),
        ("mysql://u:hunter2@h/db", "unknown store URL scheme 'mysql'"), ("hunter2", "unknown store URL scheme '?'"),
        ("file:/tmp/x.db", "unknown store URL scheme 'file'"), ("", "unknown store URL scheme '?'"),
        ("POSTGRES://u:hunter2@h/db", "unknown store URL scheme 'POSTGRES'"),
    ])
    func badURLsAreOneProblemNamingTheKey(url: String, reason: String) {
        #expect {
            _ = try RecordsLocation(parsing: url)
        } throws: { error in
            guard let error = error as? ConfigError, error.problems.count == 1 else { return false }
            let problem = error.problems[0]
            return problem.keyPath == "records.url" && problem.message.contains(reason)
                && !problem.message.contains("hunter2")
        }
    }

    @Test func scrubbingRemovesEveryFormOfThePassword() throws {
        let url = try PostgresURL("postgres://app:p%40ss@h/db?password=other")
        #expect(
            url.scrub("auth failed for p@ss, p%40ss and other\n")
                == "auth failed for <redacted>, <redacted> and <redacted>")
    }

    @Test func printingAndDumpingRedactTheURL() throws {
        let records = RecordsConfig(location: try RecordsLocation(parsing: "postgres://u:hunter2@db/x"))
        var dumped = ""
        dump(records, to: &dumped)
        #expect(!"\(records)".contains("hunter2"))
        #expect(!String(reflecting: records).contains("hunter2"))
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("postgres://u:<redacted>@db/x"))
        guard case .postgres(let url) = records.location else { return #expect(Bool(false)) }
        #expect(url.connectionString == "postgres://u:hunter2@db/x")
    }
}
