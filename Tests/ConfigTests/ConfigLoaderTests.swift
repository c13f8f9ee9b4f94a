import Config
import Crypto
import Testing

@Suite struct ConfigLoaderTests {
    @Test func noArgumentsRunWithTheDefaults() throws {
        let config = try #require(runConfig(load()))
        #expect(config == defaultsWithExampleCredentials())
        #expect(config.server.port == 8080)
    }

    /// The built-in defaults carry no S3 credentials: that is a valid configuration, since the
    /// credential chain (web identity, shared files, container, IMDS) decides at start. Only when
    /// `s3.credentialSources` lists nothing but `environment` can the server not sign without static
    /// keys: then loading fails (so `--check-config` and a start both exit 2) and says which
    /// variables to set.
    @Test func theDefaultsAloneLackCredentials() throws {
        let chain = try #require(runConfig(load(credentials: [:])))
        #expect(chain.s3.accessKeyId.isEmpty && chain.s3.secretAccessKey == nil)
        #expect(
            chain.notes.contains {
                $0.hasPrefix(
                    "no static S3 keys: at start presignd asks, in order, webIdentity, sharedFiles, container, imds")
            })
        let staticOnly = ["PRESIGN_S3_CREDENTIAL_SOURCES": "environment"]
        let result = load(environment: staticOnly, credentials: [:])
        let why = "s3.credentialSources lists only environment, so static keys are the only way presignd signs"
        #expect(
            problems(result) == [
                ConfigProblem(
                    keyPath: "s3.accessKeyId",
                    message:
                        "is required: \(why) (set PRESIGN_S3_ACCESS_KEY_ID or PRESIGN_S3_ACCESS_KEY_ID_FILE, or s3.accessKeyId in the config file; or AWS_ACCESS_KEY_ID)"
                ),
                ConfigProblem(
                    keyPath: "s3.secretAccessKey",
                    message:
                        "is required: \(why) (set PRESIGN_S3_SECRET_ACCESS_KEY or PRESIGN_S3_SECRET_ACCESS_KEY_FILE; or AWS_SECRET_ACCESS_KEY)"
                ),
            ])
        #expect(problems(load(["--check-config"], environment: staticOnly, credentials: [:])) == problems(result))
    }

    @Test func aFileOverridesOnlyTheKeysItGives() throws {
        let file = #"{"server":{"port":9090},"s3":{"bucket":"my-bucket","accessKeyId":"AKIDEXAMPLE"}}"#
        let config = try #require(
            runConfig(
                load(
                    ["--config", "/etc/p.json"], environment: ["PRESIGN_S3_SECRET_ACCESS_KEY": "s3cr3t"],
                    files: ["/etc/p.json": file], credentials: [:])))
        #expect(config.server.port == 9090)
        #expect(config.s3.bucket == "my-bucket")
        #expect(config.s3.accessKeyId == "AKIDEXAMPLE")
        #expect(config.server.host == "127.0.0.1")
        #expect(config.types.count == 7)
    }

    @Test func theConfigVariableNamesTheFileAndTheFlagWins() throws {
        let files = ["/a.json": #"{"server":{"port":1111}}"#, "/b.json": #"{"server":{"port":2222}}"#]
        #expect(runConfig(load(environment: ["PRESIGN_CONFIG": "/a.json"], files: files))?.server.port == 1111)
        #expect(
            runConfig(load(["--config=/b.json"], environment: ["PRESIGN_CONFIG": "/a.json"], files: files))?.server.port
                == 2222)
    }

    @Test func noFileIsReadUnlessOneIsNamed() throws {
        var asked: [String] = []
        let result = ConfigLoader.load(arguments: [], environment: exampleCredentials) { path in
            asked.append(path)
            return []
        }
        #expect(runConfig(result) != nil)
        #expect(asked.isEmpty)
    }

    @Test func anUnreadableFileIsAProblem() {
        let result = load(["--config", "/missing.json"])
        #expect(
            problems(result) == [
                ConfigProblem(keyPath: "--config", message: #"cannot read "/missing.json": No such file or directory"#)
            ])
        let viaVariable = load(environment: ["PRESIGN_CONFIG": "/missing.json"])
        #expect(keyPaths(viaVariable) == ["PRESIGN_CONFIG"])
    }

    @Test func malformedJSONIsAProblemNamingTheFile() {
        let result = load(["--config", "/p.json"], files: ["/p.json": #"{"server":{"port":1,}}"#])
        #expect(
            problems(result) == [
                ConfigProblem(keyPath: "/p.json", message: "not valid JSON: trailing comma at byte 20")
            ])
        #expect(keyPaths(load(["--config", "/p.json"], files: ["/p.json": "[1]"])) == ["/p.json"])
    }

    @Test func environmentOverridesTheFile() throws {
        let environment = [
            "PRESIGN_SERVER_MAX_CONNECTIONS": "500", "PRESIGN_SERVER_PORT": "7000", "PRESIGN_LOG_ACCESS_LOG": "0",
            "PRESIGN_S3_VERIFY_UPLOADS": "false", "PRESIGN_RECORDS_URL": "postgres://db.internal/presignd",
            "PRESIGN_PRESIGN_CDN_BASE_URL": "https://cdn.example.com/media", "PRESIGN_S3_ADDRESSING": "virtual",
        ]
        let config = try #require(
            runConfig(
                load(
                    ["--config", "/p.json"], environment: environment, files: ["/p.json": #"{"server":{"port":9090}}"#])
            ))
        #expect(config.server.maxConnections == 500)
        #expect(config.server.port == 7000)
        #expect(config.log.accessLog == false)
        #expect(config.s3.verifyUploads == false)
        #expect(config.s3.addressing == .virtual)
        #expect(config.records.location == .postgres(try PostgresURL("postgres://db.internal/presignd")))
        #expect(config.presign.cdnBaseUrl == "https://cdn.example.com/media")
    }

    @Test func flagsOverrideTheEnvironment() throws {
        let environment = ["PRESIGN_SERVER_PORT": "7000", "PRESIGN_SERVER_HOST": "10.0.0.1"]
        let config = try #require(runConfig(load(["--port", "7001", "--host=0.0.0.0"], environment: environment)))
        #expect(config.server.port == 7001)
        #expect(config.server.host == "0.0.0.0")
    }

    @Test func badEnvironmentValuesNameTheKeyAndTheVariable() {
        let result = load(environment: [
            "PRESIGN_SERVER_PORT": "80a", "PRESIGN_LOG_ACCESS_LOG": "yes", "PRESIGN_SERVER_EVENT_LOOPS": "+4",
            "PRESIGN_SERVER_WORKER_THREADS": "08", "PRESIGN_SERVER_MAX_CONNECTIONS": "99999999999999999999",
        ])
        #expect(
            problems(result) == [
                ConfigProblem(
                    keyPath: "server.port", message: #"must be an integer (got "80a" from PRESIGN_SERVER_PORT)"#),
                ConfigProblem(
                    keyPath: "server.eventLoops",
                    message: #"must be an integer (got "+4" from PRESIGN_SERVER_EVENT_LOOPS)"#),
                ConfigProblem(
                    keyPath: "server.workerThreads",
                    message: #"must be an integer (got "08" from PRESIGN_SERVER_WORKER_THREADS)"#),
                ConfigProblem(
                    keyPath: "server.maxConnections",
                    message: #"must be an integer (got "99999999999999999999" from PRESIGN_SERVER_MAX_CONNECTIONS)"#),
                ConfigProblem(
                    keyPath: "log.accessLog",
                    message: #"must be true, false, 1 or 0 (got "yes" from PRESIGN_LOG_ACCESS_LOG)"#),
            ])
        // A well-formed value that is out of range names its variable too.
        #expect(
            problems(load(environment: ["PRESIGN_SERVER_PORT": "70000"]))
                == [
                    ConfigProblem(
                        keyPath: "server.port", message: "must be 0...65535 (got 70000 from PRESIGN_SERVER_PORT)")
                ])
        #expect(
            problems(load(["--port", "65536"]))
                == [ConfigProblem(keyPath: "server.port", message: "must be 0...65535 (got 65536 from --port)")])
        #expect(runConfig(load(["--port", "0"]))?.server.port == 0)  // any free port, for tests
    }

    @Test func everyProblemIsReportedInOneRun() {
        let file = #"""
            {"server": {"port": 70000}, "s3": {"addressing": "sideways"}, "presign": {"expiresSeconds": 700000}}
            """#
        let result = load(["--config", "/p.json"], files: ["/p.json": file])
        #expect(
            problems(result) == [
                // A name that is no choice is refused while reading (the value is an enum), before the
                // range checks of the validator.
                ConfigProblem(
                    keyPath: "s3.addressing", message: #"must be one of path, virtual, auto (got "sideways")"#),
                ConfigProblem(keyPath: "server.port", message: "must be 0...65535 (got 70000)"),
                ConfigProblem(keyPath: "presign.expiresSeconds", message: "must be 1...604800 (got 700000)"),
            ])
        if case .failure(let error) = result {
            #expect(
                error.description
                    == """
                    s3.addressing: must be one of path, virtual, auto (got "sideways")
                    server.port: must be 0...65535 (got 70000)
                    presign.expiresSeconds: must be 1...604800 (got 700000)
                    """)
        }
    }

    @Test func unknownKeysAndWrongTypesAreReportedWithTheirPaths() {
        let file = #"""
            {"server": {"prot": 80, "host": 1, "port": 1.5}, "logs": {}, "log": {"accessLog": "yes"},
             "types": {"PROFILE": {"maxbytes": 1}}, "s3": []}
            """#
        #expect(
            problems(load(["--config", "/p.json"], files: ["/p.json": file])) == [
                ConfigProblem(keyPath: "server.prot", message: "unknown key"),
                ConfigProblem(keyPath: "server.host", message: "must be a string (got 1)"),
                ConfigProblem(keyPath: "server.port", message: "must be an integer (got 1.5)"),
                ConfigProblem(
                    keyPath: "logs",
                    message:
                        "unknown key (sections are server, tls, log, auth, limits, s3, presign, types, records, explain, "
                        + "compat, uppy, multipart, events, webhooks, scan, cors)"),
                ConfigProblem(keyPath: "log.accessLog", message: #"must be true or false (got "yes")"#),
                ConfigProblem(
                    keyPath: "types.PROFILE.maxbytes",
                    message:
                        "unknown key (a type has extensions, contentTypes, keyTemplate, permanentKeyTemplate, maxBytes, expiresSeconds, chatroomId, contentCheck, verifyChecksum, computeSha256, dedup, scan, requiresChatroomId)"
                ),
                ConfigProblem(keyPath: "s3", message: "must be an object (got an array)"),
            ])
    }

    @Test func unknownVariablesInOurNamespacesAreProblems() {
        let environment = [
            "PRESIGN_SERVER_PROT": "80", "PRESIGN_TYPES_PROFILE_MAX_BYTES": "1", "PRESIGN_SERVER_PORT_FILE": "/p",
            "PRESIGN_SOMETHING_ELSE": "x", "PRESIGN_CONFIG": "", "HOME": "/root", "PRESIGN_TEST_S3_ENDPOINT": "x",
            "PRESIGN_SKIP_S3": "1",
        ]
        #expect(
            keyPaths(load(environment: environment)) == [
                "PRESIGN_SERVER_PORT_FILE", "PRESIGN_SERVER_PROT", "PRESIGN_SOMETHING_ELSE",
                "PRESIGN_TYPES_PROFILE_MAX_BYTES",
            ])
    }

    @Test func typesMergeByNameAddAndRemove() throws {
        let file = #"""
            {"types": {
              "PROFILE": {"maxBytes": 5000000},
              "FEED": null,
              "DOCUMENT": {"contentTypes": ["application/pdf"], "extensions": ["pdf"],
                           "keyTemplate": "docs/{userId}/{uuid}.{ext}", "maxBytes": 1048576}
            }, "presign": {"expiresSeconds": 300}}
            """#
        let config = try #require(runConfig(load(["--config", "/p.json"], files: ["/p.json": file])))
        #expect(
            config.types.map(\.name) == [
                "PROFILE", "CHATROOM_PROFILE", "CHAT", "CHAT_PROFILE", "IMAGE", "VIDEO", "DOCUMENT",
            ])
        let profile = try #require(config.type(named: "PROFILE"))
        #expect(profile.maxBytes == 5_000_000)
        #expect(profile.extensions == ["jpg", "jpeg", "png"])
        let document = try #require(config.type(named: "DOCUMENT"))
        #expect(document.expiresSeconds == 300)  // a new type's default is presign.expiresSeconds
        #expect(document.permanentKeyTemplate == nil)
        #expect(document.requiresChatroomId == false)
        #expect(document.contentCheck == false)  // not an image type: the check is off unless asked for
        #expect(profile.contentCheck)
        #expect(config.type(named: "FEED") == nil)
        #expect(config.type(named: "profile") == nil)
    }

    @Test func aNewTypeMustGiveItsRequiredFields() {
        let file = #"{"types": {"NEW": {"extensions": ["txt"]}, "GHOST": null}}"#
        #expect(
            problems(load(["--config", "/p.json"], files: ["/p.json": file])) == [
                ConfigProblem(keyPath: "types.GHOST", message: "cannot remove a type that is not configured"),
                ConfigProblem(keyPath: "types.NEW.contentTypes", message: "is required"),
                ConfigProblem(keyPath: "types.NEW.keyTemplate", message: "is required"),
                ConfigProblem(keyPath: "types.NEW.maxBytes", message: "is required"),
            ])
    }

    @Test func checkConfigVersionAndHelp() throws {
        if case .success(.checkConfig(let config)) = load(["--check-config"]) {
            #expect(config == defaultsWithExampleCredentials())
        } else {
            Issue.record("--check-config did not give .checkConfig")
        }
        guard case .success(.version) = load(["--version"]) else { return #expect(Bool(false), "--version") }
        #expect(ConfigLoader.version == "0.1.0")
        guard case .success(.help(let text)) = load(["--help"]) else { return #expect(Bool(false), "--help") }
        #expect(text == ConfigLoader.helpText)
        for flag in ["--config", "--host", "--port", "--check-config", "--version", "--help", "PRESIGN_CONFIG"] {
            #expect(text.contains(flag), "help mentions \(flag)")
        }
        // -h is --help; help wins over other flags, even bad ones.
        guard case .success(.help) = load(["--bogus", "-h"]) else { return #expect(Bool(false), "-h") }
        guard case .success(.version) = load(["--port", "-1", "--version"]) else {
            return #expect(Bool(false), "version")
        }
    }

    @Test func badFlagsAreProblems() {
        #expect(
            problems(load(["--bogus", "--port", "--check-config=yes", "stray"])) == [
                ConfigProblem(keyPath: "--bogus", message: "unknown flag (see --help)"),
                ConfigProblem(keyPath: "--port", message: "requires a value"),
                ConfigProblem(keyPath: "--check-config", message: "takes no value"),
                ConfigProblem(keyPath: "stray", message: "unexpected argument (flags start with --)"),
            ])
        #expect(keyPaths(load(["--port"])) == ["--port"])
        #expect(keyPaths(load(["--config"])) == ["--config"])
        #expect(keyPaths(load(["--port", "http"])) == ["server.port"])
    }
}

/// Choices arrive as enums and "unset" as nil: nothing downstream parses a name again or reads an
/// empty string as "not configured".
@Suite struct TypedSettingsTests {
    @Test func choicesAreEnumsAndABadNameNamesItsOrigin() {
        let config = runConfig(
            load(environment: [
                "PRESIGN_AUTH_MODE": "none", "PRESIGN_S3_ADDRESSING": "auto", "PRESIGN_TLS_MIN_VERSION": "1.3",
            ]))
        #expect(config?.auth.mode == AuthConfig.Mode.none)
        #expect(config?.s3.addressing == .auto)
        #expect(config?.tls.minVersion == .tls13)
        #expect(
            problems(load(environment: ["PRESIGN_AUTH_MODE": "JWT"]))
                == [
                    ConfigProblem(
                        keyPath: "auth.mode",
                        message: #"must be one of dev, none, jwt (got "JWT" from PRESIGN_AUTH_MODE)"#)
                ])
        #expect(
            problems(load(["--config", "/c.json"], files: ["/c.json": #"{"tls": {"minVersion": 1.3}}"#]))
                == [ConfigProblem(keyPath: "tls.minVersion", message: "must be one of 1.2, 1.3 (got 1.3)")])
    }

    @Test func emptyMeansUnset() {
        let set = runConfig(
            load(environment: [
                "PRESIGN_S3_PUBLIC_ENDPOINT": "https://s3.example.com", "PRESIGN_S3_CA_FILE": "",
                "PRESIGN_PRESIGN_CDN_BASE_URL": "https://cdn.example.com",
            ]))
        #expect(set?.s3.publicEndpoint == "https://s3.example.com")
        #expect(set?.s3.effectivePublicEndpoint == "https://s3.example.com")
        #expect(set?.s3.caFile == nil)
        #expect(set?.presign.cdnBaseUrl == "https://cdn.example.com")
        let file = #"{"s3": {"publicEndpoint": ""}, "auth": {"jwtIssuer": "", "jwtAudience": "app"}}"#
        let unset = runConfig(load(["--config", "/c.json"], files: ["/c.json": file]))
        #expect(unset?.s3.publicEndpoint == nil)
        #expect(unset?.s3.effectivePublicEndpoint == unset?.s3.endpoint)
        #expect(unset?.auth.jwtIssuer == nil)
        #expect(unset?.auth.jwtAudience == "app")
        // Printed back in config-file form, unset is "" again, as the file writes it.
        #expect(unset?.redactedJSON().contains(#""publicEndpoint": """#) == true)
    }
}
