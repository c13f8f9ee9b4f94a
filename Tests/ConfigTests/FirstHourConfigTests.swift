import Testing

@testable import Config

/// What a new user's first mistakes meet: a mistyped variable named with what it meant, the start-up
/// bucket check's setting, and the development token command's arguments.
@Suite struct FirstHourConfigTests {
    /// Mistyped names → what they meant (issue 19: PRESIGN_BUCKET and PRESIGN_S3BUCKET were ignored).
    static let typos: [(variable: String, suggestion: String)] = [
        ("PRESIGN_BUCKET", "did you mean PRESIGN_S3_BUCKET?"),
        ("PRESIGN_S3BUCKET", "did you mean PRESIGN_S3_BUCKET?"),
        ("PRESIGN_S3_BUKCET", "did you mean PRESIGN_S3_BUCKET?"),
        ("PRESIGN_PORT", "did you mean PRESIGN_SERVER_PORT?"),
        ("PRESIGN_SERVER_PROT", "did you mean PRESIGN_SERVER_PORT?"),
        ("PRESIGN_REGION", "did you mean PRESIGN_S3_REGION?"),
        ("PRESIGN_S3_SECRET_KEY", "did you mean PRESIGN_S3_SECRET_ACCESS_KEY?"),
    ]

    @Test func everyUnknownPresignVariableIsAProblemWithASuggestion() {
        for (variable, suggestion) in Self.typos {
            let found = problems(load(environment: [variable: "my-bucket"]))
            #expect(found.count == 1, "\(variable): \(found)")
            #expect(found.first?.keyPath == variable)
            #expect(found.first?.message.contains(suggestion) == true, "\(variable): \(found)")
        }
        let none = problems(load(environment: ["PRESIGN_ZZZZZZZZZZZZZZZZZZZZ": "1"]))
        #expect(none.map(\.message) == ["unknown variable (no configuration key has this name)"])
    }

    @Test func aNameSharedBySeveralSectionsListsThemAll() {
        let found = problems(load(environment: ["PRESIGN_ENABLED": "true"]))
        #expect(found.count == 1)
        #expect(
            found.first?.message.contains(
                "PRESIGN_EVENTS_ENABLED or PRESIGN_EXPLAIN_ENABLED or PRESIGN_LIMITS_ENABLED")
                == true, "\(found)")
    }

    @Test func theTestSuitesOwnVariablesAndTheDocumentedFileFormsPass() {
        let environment = [
            "PRESIGN_TEST_S3_ENDPOINT": "http://127.0.0.1:1", "PRESIGN_TEST_UPLOAD_BINARY": "/x",
            "PRESIGN_SKIP_POSTGRES": "1",
            "PRESIGN_CONFIG": "",
        ]
        #expect(problems(load(environment: environment)).isEmpty)
        let secret = load(
            environment: ["PRESIGN_AUTH_HS256_SECRET_FILE": "/s"], files: ["/s": String(repeating: "k", count: 40)])
        #expect(problems(secret).isEmpty)
    }

    @Test func editDistanceCountsATranspositionAsOneEdit() {
        func d(_ a: String, _ b: String) -> Int { VariableSuggestion.editDistance(Array(a.utf8), Array(b.utf8)) }
        #expect(d("BUCKET", "BUCKET") == 0)
        #expect(d("BUKCET", "BUCKET") == 1)
        #expect(d("S3BUCKET", "S3_BUCKET") == 1)
        #expect(d("", "ABC") == 3)
        #expect(d("KITTEN", "SITTING") == 3)
    }

    @Test func theStartupCheckIsWarnByDefaultAndValidated() throws {
        #expect(try #require(runConfig(load())).s3.startupCheck == .warn)
        for (value, expected) in [("fail", S3Config.StartupCheck.fail), ("off", .off), ("warn", .warn)] {
            #expect(runConfig(load(environment: ["PRESIGN_S3_STARTUP_CHECK": value]))?.s3.startupCheck == expected)
        }
        let file = #"{"s3": {"startupCheck": "fail"}}"#
        #expect(runConfig(load(["--config", "/c.json"], files: ["/c.json": file]))?.s3.startupCheck == .fail)
        let bad = problems(load(environment: ["PRESIGN_S3_STARTUP_CHECK": "sometimes"]))
        #expect(bad.map(\.keyPath) == ["s3.startupCheck"])
        #expect(bad.first?.message.hasPrefix("must be one of warn, fail, off") == true, "\(bad)")
    }

    @Test func theTokenCommandTakesAUserAndALifetime() throws {
        guard case .success(.token(_, let arguments)) = load(["token", "--user", "42", "--ttl", "15m"]) else {
            Issue.record("token was not parsed")
            return
        }
        #expect(arguments == TokenArguments(user: "42", lifetimeSeconds: 900))
        guard case .success(.token(_, let defaults)) = load(["token", "--user=7"]) else {
            Issue.record("token --user=7 was not parsed")
            return
        }
        #expect(defaults.lifetimeSeconds == 3600)
        #expect(keyPaths(load(["token"])) == ["--user"])
        #expect(keyPaths(load(["token", "--user", "42", "--ttl", "forever"])) == ["--ttl"])
        #expect(keyPaths(load(["--user", "42"])).first == "--user", "--user belongs to the token command only")
    }

    /// Durations as `presignd token --ttl` reads them.
    @Test func durations() {
        let vectors: [(String, Int64?)] = [
            ("90", 90), ("90s", 90), ("15m", 900), ("1h", 3600), ("7d", 604_800), ("30d", 2_592_000), ("31d", nil),
            ("0", nil), ("0h", nil), ("", nil), ("h", nil), ("-1h", nil), ("1.5h", nil), ("1H", nil), (" 1h", nil),
            ("1w", nil),
        ]
        for (text, seconds) in vectors { #expect(TokenArguments.seconds(from: text) == seconds, "\(text)") }
    }

    @Test func aDefaultTypeTakesLargeFilesAndVideo() throws {
        let config = try #require(runConfig(load()))
        let video = try #require(config.type(named: "VIDEO"))
        #expect(video.contentTypes == ["video/mp4", "video/quicktime", "video/webm"])
        #expect(video.maxBytes == 5 * 1024 * 1024 * 1024)
        #expect(video.contentCheck == false, "the content check knows images only")
        #expect(video.keyTemplate.hasPrefix("video/{userId}/"))
    }

    @Test func presignTypesAddsAndChangesTypesWithoutAConfigFile() throws {
        let types = #"""
            {"DOCUMENT": {"contentTypes": ["application/pdf"], "keyTemplate": "docs/{userId}/{uuid}", "maxBytes": 104857600},
             "PROFILE": {"maxBytes": 5242880}, "FEED": null}
            """#
        let config = try #require(runConfig(load(environment: ["PRESIGN_TYPES": types])))
        #expect(config.type(named: "DOCUMENT")?.maxBytes == 104_857_600)
        #expect(config.type(named: "DOCUMENT")?.expiresSeconds == 600)
        #expect(config.type(named: "PROFILE")?.maxBytes == 5_242_880)
        #expect(config.type(named: "PROFILE")?.extensions == ["jpg", "jpeg", "png"], "merged field by field")
        #expect(config.type(named: "FEED") == nil)
        // After the config file's types, as the environment layer comes after the file.
        let file = #"{"types": {"PROFILE": {"maxBytes": 1000}}}"#
        let both = try #require(
            runConfig(
                load(
                    ["--config", "/c.json"], environment: ["PRESIGN_TYPES": #"{"PROFILE": {"maxBytes": 2000}}"#],
                    files: ["/c.json": file])))
        #expect(both.type(named: "PROFILE")?.maxBytes == 2000)
        #expect(keyPaths(load(environment: ["PRESIGN_TYPES": "[1]"])) == ["PRESIGN_TYPES"])
        #expect(keyPaths(load(environment: ["PRESIGN_TYPES": "{"])) == ["PRESIGN_TYPES"])
        #expect(
            keyPaths(load(environment: ["PRESIGN_TYPES": #"{"X": {"maxBytes": 1}}"#])).contains {
                $0.hasPrefix("types.X")
            })
        let perField = problems(load(environment: ["PRESIGN_TYPES_PROFILE_MAX_BYTES": "1"]))
        #expect(perField.first?.message.contains("give PRESIGN_TYPES a JSON object") == true)
    }
}
