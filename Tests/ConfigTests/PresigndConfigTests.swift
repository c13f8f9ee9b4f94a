import Crypto
import JSON
import Testing

@testable import Config

@Suite struct PresigndConfigTests {
    /// The documented defaults (docs/operations.md, with the upload types), value by value.
    @Test func defaultsAreTheDocumentedValues() throws {
        let config = PresigndConfig.defaults
        let server = config.server
        #expect(server.host == "127.0.0.1")
        #expect(server.port == 8080)
        #expect(server.eventLoops == 0)
        #expect(server.workerThreads == 32)
        #expect(server.workerQueueLimit == 1024)
        #expect(server.maxConnections == 10000)
        #expect(server.headerTimeoutMs == 10000)
        #expect(server.bodyTimeoutMs == 30000)
        #expect(server.idleTimeoutMs == 60000)
        #expect(server.drainTimeoutMs == 10000)
        #expect(server.drainDelayMs == 5000)
        #expect(server.maxPipelinedPerRead == 32)
        #expect(server.maxJsonBodyBytes == 65536)
        #expect(server.metricsPort == 0)
        #expect(config.log.level == "info")
        #expect(config.log.accessLog == true)
        #expect(config.auth.mode == .dev)
        #expect(config.auth.devUserHeader == "X-User-Id")
        #expect(config.auth.devDefaultUserId == "1")
        #expect(config.auth.hs256Secret == nil)
        #expect(config.auth.jwtAlgorithms == ["RS256", "ES256"])
        #expect(config.auth.jwtIssuer == nil)
        #expect(config.auth.jwtAudience == nil)
        #expect(config.auth.jwtLeewaySeconds == 60)
        #expect(config.auth.jwtUserClaim == "sub")
        #expect(config.auth.jwtPublicKeyFiles == [])
        #expect(config.auth.jwksFile == nil)
        #expect(config.auth.maxTokenBytes == 8192)
        #expect(config.auth.apiKeys == [])
        #expect(config.limits.enabled == true)
        #expect(config.limits.issuePerUserPerMinute == 120)
        #expect(config.limits.issuePerAddressPerMinute == 600)
        #expect(config.limits.confirmPerUserPerMinute == 600)
        #expect(config.limits.confirmPerAddressPerMinute == 3000)
        #expect(config.limits.uppyPerUserPerMinute == 1000)
        #expect(config.limits.uppyPerAddressPerMinute == 5000)
        #expect(config.limits.burst == 10)
        #expect(config.limits.syncIntervalMs == 100)
        #expect(config.records.postgresStatements == .named)
        #expect(config.limits.trustForwardedFor == false)
        #expect(config.tls.enabled == false)
        #expect(config.tls.certificateFile == "")
        #expect(config.tls.privateKeyFile == "")
        #expect(config.tls.minVersion == .tls12)
        let s3 = config.s3
        #expect(s3.endpoint == "http://127.0.0.1:9000")
        #expect(s3.publicEndpoint == nil)
        #expect(s3.effectivePublicEndpoint == "http://127.0.0.1:9000")
        #expect(s3.region == "us-east-1")
        #expect(s3.bucket == "uploads")
        #expect(s3.addressing == .path)
        #expect(s3.accessKeyId == "")
        #expect(s3.secretAccessKey == nil)
        #expect(s3.sessionToken == nil)
        #expect(s3.requestTimeoutMs == 5000)
        #expect(s3.maxClockSkewSeconds == 300)
        #expect(s3.maxRetries == 2)
        #expect(s3.verifyUploads == true)
        #expect(config.presign.expiresSeconds == 600)
        #expect(config.presign.defaultPostType == "IMAGE")
        #expect(config.presign.readUrlExpiresSeconds == 3600)
        #expect(config.presign.cdnBaseUrl == nil)
        let records = config.records
        #expect(records.location == .sqlite(path: "data/presignd.sqlite3"))
        #expect(records.intentBatchSize == 256)
        #expect(records.intentCommitTimeoutMs == 2000)
        #expect(records.groupCommitMaxBatch == 256)
        #expect(records.poolSize == 8)
        #expect(records.janitorIntervalMs == 60000)
        #expect(records.janitorBatchSize == 500)
        #expect(records.deleteUnconfirmedObjects == false)
        #expect(records.busyTimeoutMs == 5000)
    }

    /// Client P's five types and client B's one (docs/operations.md, "Defaults"), in file order.
    @Test func defaultTypesServeBothClients() throws {
        let config = PresigndConfig.defaults
        #expect(
            config.types.map(\.name) == [
                "PROFILE", "FEED", "CHATROOM_PROFILE", "CHAT", "CHAT_PROFILE", "IMAGE", "VIDEO",
            ])
        let mebibyte: Int64 = 1 << 20
        let expected: [(String, String, String, Bool)] = [
            (
                "PROFILE", "delete/profile/{userId}/{uuid}_{epochMillis}.{ext}",
                "profile/{userId}/origin/{uuid}_{epochMillis}.{ext}", false
            ),
            (
                "FEED", "delete/feed/{uuid}/{uuid}_{epochMillis}.{ext}",
                "feed/{uuid}/origin/{uuid}_{epochMillis}.{ext}", false
            ),
            (
                "CHATROOM_PROFILE", "delete/chatroom/{chatroomId}/{uuid}_{epochMillis}.{ext}",
                "chatroom/{chatroomId}/origin/{uuid}_{epochMillis}.{ext}", true
            ),
            (
                "CHAT", "delete/chatroom/{chatroomId}/chat/{uuid}/{uuid}_{epochMillis}.{ext}",
                "chatroom/{chatroomId}/chat/{uuid}/origin/{uuid}_{epochMillis}.{ext}", true
            ),
            (
                "CHAT_PROFILE", "delete/chatroom/{chatroomId}/chat_profile/{userId}/{uuid}_{epochMillis}.{ext}",
                "chatroom/{chatroomId}/chat_profile/{userId}/origin/{uuid}_{epochMillis}.{ext}", true
            ),
        ]
        // The Bool: whether the key has a {chatroomId} segment. CHAT and CHAT_PROFILE need the caller's
        // (client P's own server requires it: mission.md); CHATROOM_PROFILE, which client P's app sends
        // without one, makes it on the server; every default type is checked.
        for (name, key, permanent, hasChatroomSegment) in expected {
            let type = try #require(config.type(named: name))
            #expect(type.extensions == ["jpg", "jpeg", "png"])
            #expect(type.contentTypes == ["image/jpeg", "image/png"])
            #expect(type.keyTemplate == key)
            #expect(type.permanentKeyTemplate == permanent)
            #expect(type.maxBytes == 10 * mebibyte)
            #expect(type.expiresSeconds == 600)
            let required = name == "CHAT" || name == "CHAT_PROFILE"
            #expect(type.chatroomId == (required ? .required : .serverMade), "\(name)")
            #expect(type.requiresChatroomId == required, "\(name)")
            #expect(key.contains("{chatroomId}") == hasChatroomSegment, "\(name)")
            #expect(type.contentCheck, "\(name)")
            // The permanent key is the same path without delete/ and with origin/ before the file name.
            let withoutDelete = key.dropFirst("delete/".count)
            let slash = try #require(withoutDelete.lastIndex(of: "/"))
            #expect(
                permanent == withoutDelete[...slash] + "origin/" + withoutDelete[withoutDelete.index(after: slash)...])
        }
        let image = try #require(config.type(named: "IMAGE"))
        #expect(
            image
                == UploadTypeConfig(
                    name: "IMAGE", extensions: [],
                    contentTypes: ["image/jpeg", "image/png", "image/heic", "image/webp"],
                    keyTemplate: "{imageKey}", permanentKeyTemplate: nil, maxBytes: 20 * mebibyte, expiresSeconds: 600,
                    chatroomId: .serverMade, contentCheck: true))
    }

    /// The bytes compiled into the binary are the file's, under both of its names.
    @Test func theShippedFileIsByteIdenticalToTheBuiltInDefaults() throws {
        for path in ["Sources/Config/presignd.json", "config/presignd.json"] {
            let shipped = try ConfigLoader.readFile(atPath: repositoryPath(path))
            #expect(shipped == DefaultConfiguration.bytes, "\(path)")
        }
        #expect(DefaultConfiguration.bytes.count > 1000)
    }

    /// The built-in document is in canonical form, lists every non-secret key in registry order, and
    /// agrees with the Swift initializers' defaults.
    @Test func theBuiltInDocumentIsCompleteAndAgreesWithTheInitializers() throws {
        let text = String(decoding: DefaultConfiguration.bytes, as: UTF8.self)
        let document = try JSONValue(parsing: text)
        #expect(document.prettyPrinted() == text)
        #expect(PresigndConfig.defaults.jsonValue(includingSecretKeys: false) == document)
        #expect(PresigndConfig(types: PresigndConfig.defaults.types) == PresigndConfig.defaults)
    }

    @Test func redactedJSONShowsEffectiveValuesAndHidesSecrets() throws {
        let secrets = [
            "PRESIGN_S3_SECRET_ACCESS_KEY": "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY",
            "PRESIGN_S3_SESSION_TOKEN": "FwoGZXIvYXdzEXAMPLETOKEN",
            "PRESIGN_AUTH_HS256_SECRET": "an-hs256-key-of-at-least-32-bytes-long!!",
            "PRESIGN_RECORDS_URL":
                "postgres://presignd:db-password-123@db:5432/presignd?sslmode=require&password=other-pass",
            "PRESIGN_S3_ACCESS_KEY_ID": "AKIDEXAMPLE",
            "PRESIGN_SERVER_PORT": "9999",
        ]
        let config = try #require(runConfig(load(environment: secrets)))
        #expect(config.s3.secretAccessKey?.unredacted == "wJalrXUtnFEMI-K7MDENG-bPxRfiCYEXAMPLEKEY")
        let json = config.redactedJSON()
        let parsed = try JSONValue(parsing: json)
        #expect(parsed["server"]?["port"] == 9999)
        #expect(parsed["s3"]?["accessKeyId"] == "AKIDEXAMPLE")
        #expect(parsed["s3"]?["secretAccessKey"] == "<redacted>")
        #expect(parsed["s3"]?["sessionToken"] == "<redacted>")
        #expect(parsed["auth"]?["hs256Secret"] == "<redacted>")
        #expect(
            parsed["records"]?["url"]
                == "postgres://presignd:<redacted>@db:5432/presignd?sslmode=require&password=<redacted>")
        #expect(parsed["types"]?["IMAGE"]?["keyTemplate"] == "{imageKey}")
        #expect(PresigndConfig.defaults.redactedJSON().contains(#""secretAccessKey": null"#))

        var dumped = ""
        dump(config, to: &dumped)
        for printed in [json, config.description, "\(config)", String(reflecting: config), dumped, "\(config.records)"]
        {
            for (variable, value) in secrets
            where variable != "PRESIGN_S3_ACCESS_KEY_ID" && variable != "PRESIGN_SERVER_PORT" {
                #expect(!printed.contains(value), "\(variable) leaked")
            }
            #expect(!printed.contains("db-password-123"))
            #expect(!printed.contains("other-pass"))
        }
    }

    @Test func problemsNeverCarryASecret() {
        // Each secret is valid in itself but part of a broken whole; no message may quote it.
        let environment = [
            "PRESIGN_S3_SECRET_ACCESS_KEY": "TOPSECRET-aws-key",
            "PRESIGN_AUTH_HS256_SECRET": "TOPSECRET-short",
            "PRESIGN_S3_SESSION_TOKEN_FILE": "/run/secrets/token",
            "PRESIGN_RECORDS_URL": "mysql://user:TOPSECRET-db@host/db",
        ]
        let result = load(
            environment: environment, files: ["/run/secrets/token": "TOPSECRET-token\n"], credentials: [:])
        guard case .failure(let error) = result else { return #expect(Bool(false), "expected problems") }
        #expect(
            error.problems.map(\.keyPath) == [
                "records.url", "auth.hs256Secret", "s3.accessKeyId", "s3.sessionToken",
            ])
        #expect(!error.description.contains("TOPSECRET"))
        #expect(!String(reflecting: error).contains("TOPSECRET"))
        #expect(error.description.contains("mysql://user:<redacted>@host/db"))
    }
}
