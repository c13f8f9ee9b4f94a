import Config
import Crypto
import JSON
import Testing

/// The `auth` keys of `jwt` mode: defaults, file and environment forms, and their validation.
@Suite struct AuthConfigTests {
    static let secret = "an-hs256-key-of-at-least-32-bytes-long!!"
    static let digestA = SHA256.hash("key-a").hex
    static let digestB = SHA256.hash("key-b").hex

    /// Loads with one config file holding `json` and the files in `files`.
    func loadFile(
        _ json: String, environment: [String: String] = [:], files: [String: String] = [:]
    ) -> Result<CommandLineAction, ConfigError> {
        load(["--config", "/p.json"], environment: environment, files: files.merging(["/p.json": json]) { $1 })
    }

    @Test func jwtModeFromTheFile() throws {
        let file = """
            {"auth": {"mode": "jwt", "jwtAlgorithms": ["ES256"], "jwtIssuer": "https://id.example", "jwtAudience": "app",
              "jwtLeewaySeconds": 0, "jwtUserClaim": "uid", "jwtPublicKeyFiles": ["/keys/a.pem", "/keys/b.crt"],
              "jwksFile": "/keys/jwks.json", "maxTokenBytes": 4096,
              "apiKeys": [{"id": "backend-a", "sha256": "\(Self.digestA)"}, {"id": "backend-b", "sha256": "\(Self.digestB.uppercased())"}]}}
            """
        let files = ["/keys/a.pem": "pem", "/keys/b.crt": "crt", "/keys/jwks.json": "{}"]
        let config = try #require(runConfig(loadFile(file, files: files)), "\(problems(loadFile(file, files: files)))")
        let auth = config.auth
        #expect(auth.mode == .jwt)
        #expect(auth.jwtAlgorithms == ["ES256"])
        #expect(auth.jwtIssuer == "https://id.example")
        #expect(auth.jwtAudience == "app")
        #expect(auth.jwtLeewaySeconds == 0)
        #expect(auth.jwtUserClaim == "uid")
        #expect(auth.jwtPublicKeyFiles == ["/keys/a.pem", "/keys/b.crt"])
        #expect(auth.jwksFile == "/keys/jwks.json")
        #expect(auth.maxTokenBytes == 4096)
        #expect(
            auth.apiKeys == [
                APIKeyConfig(id: "backend-a", sha256: Self.digestA),
                APIKeyConfig(id: "backend-b", sha256: Self.digestB.uppercased()),
            ])
        // --check-config shows the lists and the digests (never a key).
        let printed = try JSONValue(parsing: config.redactedJSON())
        #expect(printed["auth"]?["jwtPublicKeyFiles"] == .array(["/keys/a.pem", "/keys/b.crt"]))
        #expect(printed["auth"]?["apiKeys"]?.arrayValue?.first?["id"] == "backend-a")
    }

    @Test func jwtModeFromTheEnvironment() throws {
        let environment = [
            "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256, RS256",
            "PRESIGN_AUTH_HS256_SECRET": Self.secret, "PRESIGN_AUTH_JWT_ISSUER": "iss",
            "PRESIGN_AUTH_JWT_AUDIENCE": "aud", "PRESIGN_AUTH_JWT_LEEWAY_SECONDS": "30",
            "PRESIGN_AUTH_JWT_USER_CLAIM": "user_id", "PRESIGN_AUTH_JWT_PUBLIC_KEY_FILES": "/k/a.pem,/k/b.pem",
            "PRESIGN_AUTH_JWKS_FILE": "/k/jwks.json", "PRESIGN_AUTH_MAX_TOKEN_BYTES": "16384",
            "PRESIGN_AUTH_API_KEYS": "backend-a:\(Self.digestA), backend-b:\(Self.digestB)",
        ]
        let files = ["/k/a.pem": "a", "/k/b.pem": "b", "/k/jwks.json": "{}"]
        let config = try #require(runConfig(load(environment: environment, files: files)))
        #expect(config.auth.jwtAlgorithms == ["HS256", "RS256"])
        #expect(config.auth.hs256Secret == Secret(Self.secret))
        #expect(config.auth.jwtIssuer == "iss" && config.auth.jwtAudience == "aud")
        #expect(config.auth.jwtLeewaySeconds == 30 && config.auth.maxTokenBytes == 16384)
        #expect(config.auth.jwtUserClaim == "user_id")
        #expect(config.auth.jwtPublicKeyFiles == ["/k/a.pem", "/k/b.pem"])
        #expect(config.auth.jwksFile == "/k/jwks.json")
        #expect(config.auth.apiKeys.map(\.id) == ["backend-a", "backend-b"])
        // The variable replaces the file's list; an empty variable empties it.
        let emptied = load(
            ["--config", "/p.json"], environment: ["PRESIGN_AUTH_JWT_PUBLIC_KEY_FILES": ""],
            files: ["/p.json": #"{"auth":{"jwtPublicKeyFiles":["/x.pem"]}}"#])
        #expect(runConfig(emptied)?.auth.jwtPublicKeyFiles == [])
    }

    @Test func apiKeysFromAFile() throws {
        let environment = ["PRESIGN_AUTH_API_KEYS_FILE": "/run/secrets/api-keys"]
        let contents = "backend-a:\(Self.digestA)\r\n\nbackend-b:\(Self.digestB)\n"
        let config = try #require(runConfig(load(environment: environment, files: ["/run/secrets/api-keys": contents])))
        #expect(
            config.auth.apiKeys == [
                APIKeyConfig(id: "backend-a", sha256: Self.digestA),
                APIKeyConfig(id: "backend-b", sha256: Self.digestB),
            ])
        let malformed = load(environment: ["PRESIGN_AUTH_API_KEYS": "backend-a=\(Self.digestA)"])
        #expect(
            problems(malformed) == [
                ConfigProblem(
                    keyPath: "auth.apiKeys",
                    message: "entry 1 must be id:sha256hex[:admin] (from PRESIGN_AUTH_API_KEYS)")
            ])
    }

    /// `jwt` mode needs a key source for each kind of algorithm it accepts, and says which is missing.
    @Test func jwtModeNeedsKeys() {
        let defaults = load(environment: ["PRESIGN_AUTH_MODE": "jwt"])
        #expect(
            problems(defaults) == [
                ConfigProblem(
                    keyPath: "auth.jwtPublicKeyFiles",
                    message:
                        "auth.jwtAlgorithms lists RS256, ES256, which need public keys: set auth.jwtPublicKeyFiles or auth.jwksFile"
                )
            ])
        let secretOnly = load(environment: ["PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_HS256_SECRET": Self.secret])
        #expect(
            problems(secretOnly).map(\.message).first?.hasSuffix(
                #"(or, to verify tokens with auth.hs256Secret, set auth.jwtAlgorithms to ["HS256"])"#) == true)
        let hs256WithoutSecret = load(environment: ["PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256"])
        #expect(keyPaths(hs256WithoutSecret) == ["auth.hs256Secret"])
        #expect(problems(hs256WithoutSecret).first?.message.contains("PRESIGN_AUTH_HS256_SECRET") == true)
        let both = load(environment: ["PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256,ES256"])
        #expect(keyPaths(both) == ["auth.hs256Secret", "auth.jwtPublicKeyFiles"])
        let hs256 = load(
            environment: [
                "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256",
                "PRESIGN_AUTH_HS256_SECRET": Self.secret,
            ])
        #expect(runConfig(hs256) != nil)
        let nothing = load(environment: ["PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": ""])
        #expect(keyPaths(nothing) == ["auth.jwtAlgorithms"])
        let apiKeysOnly = load(
            environment: [
                "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "",
                "PRESIGN_AUTH_API_KEYS": "svc:\(Self.digestA)",
            ])
        #expect(runConfig(apiKeysOnly)?.auth.apiKeys.count == 1)
        // Outside jwt mode the JWT keys are not required (dev stays the default).
        #expect(runConfig(load(environment: ["PRESIGN_AUTH_JWT_ALGORITHMS": "HS256"])) != nil)
    }

    /// Key files must be readable in jwt mode; the problem names the key and the path, never contents.
    @Test func unreadableKeyFilesAreProblems() {
        let environment = [
            "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_PUBLIC_KEY_FILES": "/k/present.pem,/k/missing.pem",
            "PRESIGN_AUTH_JWKS_FILE": "/k/missing.json",
        ]
        let result = load(environment: environment, files: ["/k/present.pem": "-----BEGIN PUBLIC KEY-----SECRETISH"])
        #expect(
            problems(result) == [
                ConfigProblem(
                    keyPath: "auth.jwtPublicKeyFiles",
                    message:
                        #"cannot read "/k/missing.pem": No such file or directory (from PRESIGN_AUTH_JWT_PUBLIC_KEY_FILES)"#
                ),
                ConfigProblem(
                    keyPath: "auth.jwksFile",
                    message: #"cannot read "/k/missing.json": No such file or directory (from PRESIGN_AUTH_JWKS_FILE)"#),
            ])
        #expect(!ConfigError(problems: problems(result)).description.contains("SECRETISH"))
        // The same settings in dev mode read nothing and are accepted.
        var dev = environment
        dev["PRESIGN_AUTH_MODE"] = "dev"
        #expect(runConfig(load(environment: dev)) != nil)
    }

    @Test(arguments: [
        (
            #"{"auth":{"jwtAlgorithms":["none"]}}"#,
            "auth.jwtAlgorithms: must not list none: unsigned tokens are never accepted"
        ),
        (
            #"{"auth":{"jwtAlgorithms":["rs256"]}}"#,
            #"auth.jwtAlgorithms: each must be one of HS256, RS256, ES256 (got "rs256")"#
        ),
        (
            #"{"auth":{"jwtAlgorithms":["RS512"]}}"#,
            #"auth.jwtAlgorithms: each must be one of HS256, RS256, ES256 (got "RS512")"#
        ),
        (
            #"{"auth":{"jwtAlgorithms":["ES256","ES256"]}}"#,
            #"auth.jwtAlgorithms: lists an algorithm twice (got "ES256")"#
        ),
        (#"{"auth":{"jwtAlgorithms":"RS256"}}"#, #"auth.jwtAlgorithms: must be an array of strings (got "RS256")"#),
        (#"{"auth":{"jwtAlgorithms":[256]}}"#, "auth.jwtAlgorithms: must be an array of strings (got an array)"),
        (#"{"auth":{"jwtLeewaySeconds":301}}"#, "auth.jwtLeewaySeconds: must be 0...300 (got 301)"),
        (#"{"auth":{"jwtLeewaySeconds":-1}}"#, "auth.jwtLeewaySeconds: must be 0...300 (got -1)"),
        (#"{"auth":{"maxTokenBytes":511}}"#, "auth.maxTokenBytes: must be 512...65536 (got 511)"),
        (#"{"auth":{"maxTokenBytes":65537}}"#, "auth.maxTokenBytes: must be 512...65536 (got 65537)"),
        (#"{"auth":{"jwtUserClaim":""}}"#, #"auth.jwtUserClaim: must be a claim name of 1-64 characters (got "")"#),
        (#"{"auth":{"jwtPublicKeyFiles":[""]}}"#, "auth.jwtPublicKeyFiles: must not hold an empty path"),
        (
            #"{"auth":{"apiKeys":{}}}"#,
            #"auth.apiKeys: must be an array of {"id": …, "sha256": …} objects (got an object)"#
        ),
        (#"{"auth":{"apiKeys":["k"]}}"#, #"auth.apiKeys[0]: must be an object (got "k")"#),
        (#"{"auth":{"apiKeys":[{"id":"a"}]}}"#, "auth.apiKeys[0]: must have the string members id and sha256"),
        (
            #"{"auth":{"apiKeys":[{"id":"a","sha256":"00","key":"x"}]}}"#,
            "auth.apiKeys[0].key: unknown key (an API key has id, sha256, scopes)"
        ),
        (
            #"{"auth":{"apiKeys":[{"id":"a b","sha256":"\#(String(repeating: "0", count: 64))"}]}}"#,
            #"auth.apiKeys[0].id: must be 1-64 characters of A-Z a-z 0-9 _ - (got "a b")"#
        ),
        (
            #"{"auth":{"apiKeys":[{"id":"a","sha256":"the-key-itself"}]}}"#,
            "auth.apiKeys[0].sha256: must be the SHA-256 of the key as 64 hexadecimal digits (not the key itself)"
        ),
    ])
    func authValuesAreValidated(_ file: String, _ expected: String) {
        #expect(problems(loadFile(file)).map(\.description) == [expected])
    }

    @Test func apiKeysMustBeUnique() {
        let zeros = String(repeating: "0", count: 64)
        let file = """
            {"auth":{"apiKeys":[{"id":"a","sha256":"\(zeros)"},{"id":"a","sha256":"\(Self.digestA)"},
              {"id":"b","sha256":"\(Self.digestA.uppercased())"}]}}
            """
        #expect(
            problems(loadFile(file)).map(\.description) == [
                #"auth.apiKeys[1].id: is used by another API key (got "a")"#,
                "auth.apiKeys[2].sha256: is the digest of another API key",
            ])
    }
}
