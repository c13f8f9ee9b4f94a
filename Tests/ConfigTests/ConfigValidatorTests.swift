import Config
import Testing

/// Loads with one config file holding `json`.
private func loadFile(
    _ json: String, environment: [String: String] = [:], credentials: [String: String] = exampleCredentials
) -> Result<CommandLineAction, ConfigError> {
    load(["--config", "/p.json"], environment: environment, files: ["/p.json": json], credentials: credentials)
}

/// The problems of a config file that sets one string key.
private func problems(section: String, key: String, value: String) -> [ConfigProblem] {
    let quoted = "\"" + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    // PRESIGN_S3_ACCESS_KEY_ID would override the file's s3.accessKeyId: give only the secret then.
    var credentials = exampleCredentials
    if section == "s3" && key == "accessKeyId" { credentials["PRESIGN_S3_ACCESS_KEY_ID"] = nil }
    return problems(loadFile(#"{"\#(section)":{"\#(key)":\#(quoted)}}"#, credentials: credentials))
}

/// The key paths of the problems of a config file that sets one string key.
private func keyPaths(section: String, key: String, value: String) -> [String] {
    problems(section: section, key: key, value: value).map(\.keyPath)
}

@Suite struct ConfigValidatorTests {
    /// s3.endpoint: `http(s)://host[:port]`, no path, query, fragment or user info.
    @Test(arguments: [
        ("https://s3.amazonaws.com", true), ("http://127.0.0.1:9000", true),
        ("https://s3.us-west-2.amazonaws.com:443", true),
        ("http://[::1]:7480", true), ("https://kr.object.ncloudstorage.com", true), ("http://localhost", true),
        ("https://s3.amazonaws.com/", false), ("https://s3.amazonaws.com/bucket", false), ("ftp://host", false),
        ("HTTP://host", false), ("https://", false), ("https://host:0", false), ("https://host:65536", false),
        ("https://host:", false), ("https://user:pw@host", false), ("https://host?x=1", false),
        ("https://ho st", false),
        ("https://host..com", false), ("http://[::1", false), ("s3.amazonaws.com", false), ("", false),
    ])
    func endpoint(_ value: String, _ valid: Bool) {
        #expect(keyPaths(section: "s3", key: "endpoint", value: value) == (valid ? [] : ["s3.endpoint"]), "\(value)")
        #expect(problems(section: "s3", key: "publicEndpoint", value: value).isEmpty == (valid || value.isEmpty))
    }

    @Test(arguments: [
        ("", true), ("https://cdn.example.com", true), ("https://cdn.example.com/media/v1", true),
        ("https://cdn.example.com/", false), ("https://cdn.example.com/a b", false), ("cdn.example.com", false),
    ])
    func cdnBaseUrl(_ value: String, _ valid: Bool) {
        #expect(problems(section: "presign", key: "cdnBaseUrl", value: value).isEmpty == valid, "\(value)")
    }

    /// Amazon S3 general purpose bucket naming rules.
    @Test(arguments: [
        ("uploads", true), ("my.dotted.bucket", true), ("a-b", true), ("123", true),
        ("ab", false), (String(repeating: "a", count: 64), false), ("My-Bucket", false), ("under_score", false),
        ("-start", false), ("end-", false), ("two..dots", false), ("192.168.5.4", false), ("xn--bucket", false),
        ("sthree-bucket", false), ("bucket-s3alias", false), ("bucket--ol-s3", false),
    ])
    func bucket(_ value: String, _ valid: Bool) {
        #expect(problems(section: "s3", key: "bucket", value: value).isEmpty == valid, "\(value)")
    }

    @Test(arguments: [
        ("us-east-1", true), ("kr-standard", true), ("auto", true), ("", false), ("US-EAST-1", false),
        ("eu west", false),
    ])
    func region(_ value: String, _ valid: Bool) {
        #expect(problems(section: "s3", key: "region", value: value).isEmpty == valid, "\(value)")
    }

    @Test(arguments: [
        ("sqlite:data/presignd.sqlite3", true), ("sqlite:/var/lib/presignd/db.sqlite3", true),
        ("sqlite::memory:", true),
        ("postgres://db/presignd", true), ("postgresql://u:p@db:5432/x?sslmode=require", true),
        ("sqlite:", false), ("postgres://", false), ("mysql://db/x", false), ("data.sqlite3", false), ("", false),
    ])
    func recordsURL(_ value: String, _ valid: Bool) {
        #expect(problems(section: "records", key: "url", value: value).isEmpty == valid, "\(value)")
    }

    @Test(arguments: [
        ("log", "level", "warn", true), ("log", "level", "trace", false), ("auth", "mode", "none", true),
        ("auth", "mode", "oauth", false), ("auth", "mode", "JWT", false), ("s3", "addressing", "auto", true),
        ("s3", "addressing", "Path", false),
        ("auth", "devUserHeader", "X-Debug-User", true), ("auth", "devUserHeader", "X User", false),
        ("auth", "devUserHeader", "", false), ("auth", "devDefaultUserId", "user_42", true),
        ("auth", "devDefaultUserId", "../etc", false), ("auth", "devDefaultUserId", "Alice", false),
        ("auth", "devDefaultUserId", "alice-01", true),
        ("auth", "devDefaultUserId", String(repeating: "a", count: 64), true),
        ("auth", "devDefaultUserId", String(repeating: "a", count: 65), false), ("auth", "devDefaultUserId", "", false),
        ("server", "host", "0.0.0.0", true),
        ("server", "host", "::", true),
        ("server", "host", "bad host", false), ("presign", "defaultPostType", "PROFILE", true),
        ("presign", "defaultPostType", "NOPE", false), ("presign", "defaultPostType", "CHAT", false),
        ("presign", "defaultPostType", "CHATROOM_PROFILE", true),
        ("s3", "accessKeyId", "AK/ID", false),
    ])
    func stringChoices(_ section: String, _ key: String, _ value: String, _ valid: Bool) {
        let found = keyPaths(section: section, key: key, value: value)
        if valid {
            #expect(found.isEmpty, "\(section).\(key)=\(value)")
        } else {
            #expect(found.first == "\(section).\(key)", "\(section).\(key)=\(value)")
        }
    }

    /// Every integer key's bounds: the lowest and highest accepted values, and one past each.
    @Test(arguments: [
        ("server", "port", 0, 65535), ("server", "eventLoops", 0, 256), ("server", "workerThreads", 1, 1024),
        ("server", "workerQueueLimit", 1, 1_000_000),
        ("server", "maxConnections", 1, 1_000_000), ("server", "headerTimeoutMs", 1, 3_600_000),
        ("server", "bodyTimeoutMs", 1, 3_600_000), ("server", "idleTimeoutMs", 1, 3_600_000),
        ("server", "drainTimeoutMs", 1, 3_600_000), ("server", "drainDelayMs", 0, 600_000),
        ("server", "maxPipelinedPerRead", 1, 1024),
        ("server", "maxJsonBodyBytes", 1, 16_777_216), ("server", "metricsPort", 0, 65535),
        ("s3", "requestTimeoutMs", 1, 600_000), ("s3", "maxRetries", 0, 10),
        ("s3", "maxClockSkewSeconds", 1, 86_400),
        ("presign", "expiresSeconds", 1, 604_800), ("presign", "readUrlExpiresSeconds", 1, 604_800),
        ("presign", "readUrlWindowSeconds", 0, 604_800),
        ("records", "intentBatchSize", 1, 65536), ("records", "intentCommitTimeoutMs", 10, 60000),
        ("records", "groupCommitMaxBatch", 1, 65536), ("records", "poolSize", 1, 256),
        ("records", "janitorIntervalMs", 1000, 86_400_000), ("records", "janitorBatchSize", 1, 100_000),
        ("records", "busyTimeoutMs", 0, 600_000),
    ])
    func integerBounds(_ section: String, _ key: String, _ low: Int, _ high: Int) {
        let path = "\(section).\(key)"
        func found(_ value: Int) -> [ConfigProblem] {
            // Keep server.port away from the metrics port under test.
            let port = key == "metricsPort" ? #","port":1"# : ""
            return problems(loadFile(#"{"\#(section)":{"\#(key)":\#(value)\#(section == "server" ? port : "")}}"#))
        }
        #expect(found(low).isEmpty, "\(path)=\(low)")
        #expect(found(high).isEmpty, "\(path)=\(high)")
        #expect(found(low - 1) == [ConfigProblem(keyPath: path, message: "must be \(low)...\(high) (got \(low - 1))")])
        #expect(
            found(high + 1) == [ConfigProblem(keyPath: path, message: "must be \(low)...\(high) (got \(high + 1))")])
    }

    @Test func metricsPortMustDifferFromPort() {
        #expect(keyPaths(loadFile(#"{"server":{"port":9000,"metricsPort":9000}}"#)) == ["server.metricsPort"])
        #expect(keyPaths(loadFile(#"{"server":{"port":9000,"metricsPort":9100}}"#)).isEmpty)
    }

    @Test func hs256SecretNeedsThirtyTwoBytes() {
        let short = String(repeating: "k", count: 31)
        #expect(keyPaths(load(environment: ["PRESIGN_AUTH_HS256_SECRET": short])) == ["auth.hs256Secret"])
        #expect(keyPaths(load(environment: ["PRESIGN_AUTH_HS256_SECRET": short + "k"])).isEmpty)
    }

    /// Key templates: literals `[a-z0-9/_.-]`, known variables, no `..`, `//`, leading or trailing `/`.
    @Test(
        arguments: [
            ("uploads/{userId}/{uuid}.{ext}", nil),
            ("{imageKey}", nil),
            ("a/{uuid}-{epochMillis}_{userId}.{ext}", nil),
            ("Uploads/{uuid}", "has a literal character outside a-z 0-9 / _ . - (got \"Uploads/{uuid}\")"),
            (
                "a/{uuid}/{nope}",
                "uses unknown variable {nope} (known: {userId} {uuid} {epochMillis} {ext} {chatroomId} {imageKey} {filename}) (got \"a/{uuid}/{nope}\")"
            ),
            ("a/{uuid", "has a { without } (got \"a/{uuid\")"),
            ("a/../{uuid}", "must not contain .. (got \"a/../{uuid}\")"),
            ("a//{uuid}", "must not contain // (got \"a//{uuid}\")"),
            ("/a/{uuid}", "must not start with / (got \"/a/{uuid}\")"),
            ("a/{uuid}/", "must not end with / (got \"a/{uuid}/\")"),
            ("a/{userId}", "must use {uuid} or {imageKey} so that every upload gets its own key"),
            // A server-made UUID fills {chatroomId} when a request has none: nothing else is needed.
            ("a/{chatroomId}/{uuid}", nil),
            ("a b/{uuid}", "has a literal character outside a-z 0-9 / _ . - (got \"a b/{uuid}\")"),
        ] as [(String, String?)])
    func keyTemplate(_ template: String, _ expected: String?) {
        let file =
            #"{"types":{"T":{"contentTypes":["text/plain"],"extensions":["txt"],"keyTemplate":"\#(template)","maxBytes":1}}}"#
        let found = problems(loadFile(file)).filter { $0.keyPath == "types.T.keyTemplate" }
        if let expected {
            #expect(found.map(\.message) == [expected])
        } else {
            #expect(found.isEmpty, "\(found)")
        }
    }

    @Test func chatroomIdIsServerMadeUnlessRequired() throws {
        let file = #"""
            {"types": {"CHAT": {"chatroomId": "required"}, "CHAT_PROFILE": {"requiresChatroomId": true},
                       "CHATROOM_PROFILE": {"requiresChatroomId": false},
                       "ROOM": {"contentTypes": ["image/png"], "keyTemplate": "r/{chatroomId}/{uuid}", "maxBytes": 1}}}
            """#
        let config = try #require(runConfig(loadFile(file)))
        #expect(config.type(named: "CHAT")?.chatroomId == .required)
        #expect(config.type(named: "CHAT_PROFILE")?.chatroomId == .required)
        #expect(config.type(named: "CHATROOM_PROFILE")?.chatroomId == .serverMade)
        #expect(config.type(named: "ROOM")?.chatroomId == .serverMade)
        #expect(config.type(named: "PROFILE")?.chatroomId == .serverMade)
    }

    @Test func chatroomIdRefusesOtherValuesAndTwoSpellings() {
        let file = #"""
            {"types": {"CHAT": {"chatroomId": "maybe"}, "FEED": {"chatroomId": true},
                       "CHAT_PROFILE": {"chatroomId": "required", "requiresChatroomId": true}}}
            """#
        #expect(
            problems(loadFile(file)).map(\.description) == [
                #"types.CHAT.chatroomId: must be "server-made" or "required" (got "maybe")"#,
                #"types.FEED.chatroomId: must be "server-made" or "required" (got true)"#,
                "types.CHAT_PROFILE: give chatroomId or the older requiresChatroomId, not both",
            ])
    }

    @Test func aPostTypeMustNotRequireAChatroomId() {
        let file = #"{"presign": {"defaultPostType": "CHAT"}, "types": {"CHAT": {"chatroomId": "required"}}}"#
        #expect(
            problems(loadFile(file)).map(\.description) == [
                #"presign.defaultPostType: must name a type that does not require chatroomId (POST sends none) (got "CHAT")"#
            ])
    }

    @Test func contentCheckIsOnForImageTypesAndOnlyForTypesItCanCheck() throws {
        let file = #"""
            {"types": {"DOC": {"contentTypes": ["application/pdf"], "keyTemplate": "d/{uuid}", "maxBytes": 1},
                       "GIFS": {"contentTypes": ["image/gif", "image/avif"], "keyTemplate": "g/{uuid}", "maxBytes": 1},
                       "RAW": {"contentTypes": ["image/jpeg"], "keyTemplate": "r/{uuid}", "maxBytes": 1,
                               "contentCheck": false},
                       "SVG": {"contentTypes": ["image/svg+xml"], "keyTemplate": "s/{uuid}", "maxBytes": 1}}}
            """#
        let config = try #require(runConfig(loadFile(file)))
        #expect(config.type(named: "DOC")?.contentCheck == false)
        #expect(config.type(named: "GIFS")?.contentCheck == true)
        #expect(config.type(named: "RAW")?.contentCheck == false)
        #expect(config.type(named: "SVG")?.contentCheck == false)
        let unchecked = config.types.filter { !$0.contentCheck }.map(\.name)
        #expect(unchecked == ["VIDEO", "DOC", "RAW", "SVG"], "VIDEO, a built-in type, holds no images")

        let forced = #"""
            {"types": {"PROFILE": {"contentTypes": ["image/jpeg", "image/svg+xml"]},
                       "DOC": {"contentTypes": ["application/pdf"], "keyTemplate": "d/{uuid}", "maxBytes": 1,
                               "contentCheck": true}, "IMAGE": {"contentCheck": "yes"}}}
            """#
        let checkable = "image/avif, image/gif, image/heic, image/heif, image/jpeg, image/png, image/webp"
        #expect(
            problems(loadFile(forced)).map(\.description) == [
                #"types.IMAGE.contentCheck: must be true or false (got "yes")"#,
                "types.PROFILE.contentCheck: is true, but the check records only images it recognises (\(checkable)): "
                    + "set contentCheck to false for this type or remove image/svg+xml from contentTypes",
                "types.DOC.contentCheck: is true, but the check records only images it recognises (\(checkable)): "
                    + "set contentCheck to false for this type or remove application/pdf from contentTypes",
            ])
    }

    @Test func typeFieldsAreValidated() {
        let file = #"""
            {"types": {"bad-name": {"contentTypes": [], "keyTemplate": "{uuid}", "maxBytes": 1},
                       "T": {"extensions": ["JPG", "jpg", "jpg", "toolongextension"], "contentTypes": ["image/jpeg", "image", "image/jpeg"],
                             "keyTemplate": "t/{uuid}.{ext}", "permanentKeyTemplate": "t/{uuid}.{ext}", "maxBytes": 0, "expiresSeconds": 604801},
                       "E": {"contentTypes": ["image/png"], "keyTemplate": "e/{uuid}.{ext}", "maxBytes": 1}}}
            """#
        #expect(
            problems(loadFile(file)).map(\.description) == [
                "types.bad-name: a type name must be 1-64 characters of A-Z 0-9 _, starting with a letter",
                "types.bad-name.contentTypes: must list at least one content type",
                #"types.T.extensions: each must be 1-10 characters of a-z 0-9 (got "JPG")"#,
                #"types.T.extensions: lists an extension twice (got "jpg")"#,
                #"types.T.extensions: each must be 1-10 characters of a-z 0-9 (got "toolongextension")"#,
                #"types.T.contentTypes: each must be a lower-case type/subtype (got "image")"#,
                #"types.T.contentTypes: lists a content type twice (got "image/jpeg")"#,
                "types.T.permanentKeyTemplate: must differ from keyTemplate (or be empty: no promotion)",
                "types.T.maxBytes: must be 1...5497558138880 (5 TiB) (got 0)",
                "types.T.expiresSeconds: must be 1...604800 (got 604801)",
                "types.E.keyTemplate: uses {ext}, so extensions must not be empty",
            ])
    }

    @Test func atLeastOneTypeIsRequired() {
        let file =
            #"{"types":{"PROFILE":null,"FEED":null,"CHATROOM_PROFILE":null,"CHAT":null,"CHAT_PROFILE":null,"IMAGE":null,"VIDEO":null}}"#
        #expect(keyPaths(loadFile(file)) == ["presign.defaultPostType", "types"])
    }
}
