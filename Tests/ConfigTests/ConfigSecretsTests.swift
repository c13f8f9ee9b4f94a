import Config
import Crypto
import Testing

/// Secrets: environment or `*_FILE` only, AWS fallbacks as a set, never from the config file.
@Suite struct ConfigSecretsTests {
    @Test func secretsComeFromTheEnvironment() throws {
        let config = try #require(
            runConfig(
                load(environment: [
                    "PRESIGN_S3_ACCESS_KEY_ID": "AKID1", "PRESIGN_S3_SECRET_ACCESS_KEY": "secret-1",
                    "PRESIGN_S3_SESSION_TOKEN": "token-1",
                    "PRESIGN_AUTH_HS256_SECRET": String(repeating: "k", count: 32),
                ])))
        #expect(config.s3.accessKeyId == "AKID1")
        #expect(config.s3.secretAccessKey == Secret("secret-1"))
        #expect(config.s3.sessionToken == Secret("token-1"))
        #expect(config.auth.hs256Secret?.unredacted == String(repeating: "k", count: 32))
    }

    @Test func secretsComeFromFilesWithOneTrailingNewlineTrimmed() throws {
        let files = [
            "/run/secrets/id": "AKID2\n", "/run/secrets/key": "secret-2\r\n", "/run/secrets/token": "token-2\n\n",
            "/run/secrets/db": "postgresql://u:p@db/x",
        ]
        let config = try #require(
            runConfig(
                load(
                    environment: [
                        "PRESIGN_S3_ACCESS_KEY_ID_FILE": "/run/secrets/id",
                        "PRESIGN_S3_SECRET_ACCESS_KEY_FILE": "/run/secrets/key",
                        "PRESIGN_S3_SESSION_TOKEN_FILE": "/run/secrets/token",
                        "PRESIGN_RECORDS_URL_FILE": "/run/secrets/db",
                    ], files: files, credentials: [:])))
        #expect(config.s3.accessKeyId == "AKID2")
        #expect(config.s3.secretAccessKey?.unredacted == "secret-2")
        #expect(config.s3.sessionToken?.unredacted == "token-2\n")  // only one newline is trimmed
        #expect(config.records.location == .postgres(try PostgresURL("postgresql://u:p@db/x")))
    }

    @Test func fileVariableProblemsNameTheVariableNotTheContents() {
        let result = load(
            environment: [
                "PRESIGN_S3_SECRET_ACCESS_KEY_FILE": "/missing", "PRESIGN_AUTH_HS256_SECRET_FILE": "/empty",
                "PRESIGN_S3_SESSION_TOKEN": "t", "PRESIGN_S3_SESSION_TOKEN_FILE": "/x",
            ], files: ["/empty": "\n"], credentials: [:])
        #expect(
            problems(result) == [
                ConfigProblem(
                    keyPath: "auth.hs256Secret", message: #"PRESIGN_AUTH_HS256_SECRET_FILE: the file "/empty" is empty"#
                ),
                ConfigProblem(
                    keyPath: "s3.secretAccessKey",
                    message: #"PRESIGN_S3_SECRET_ACCESS_KEY_FILE: cannot read "/missing": No such file or directory"#),
                ConfigProblem(
                    keyPath: "s3.sessionToken",
                    message: "set only one of PRESIGN_S3_SESSION_TOKEN and PRESIGN_S3_SESSION_TOKEN_FILE"),
            ])
    }

    @Test func awsVariablesAreAFallbackSet() throws {
        let aws = ["AWS_ACCESS_KEY_ID": "AKIDAWS", "AWS_SECRET_ACCESS_KEY": "aws-secret", "AWS_SESSION_TOKEN": ""]
        let fromAWS = try #require(runConfig(load(environment: aws, credentials: [:])))
        #expect(fromAWS.s3.accessKeyId == "AKIDAWS")
        #expect(fromAWS.s3.secretAccessKey?.unredacted == "aws-secret")
        #expect(fromAWS.s3.sessionToken == nil)  // empty AWS_* values count as unset

        var both = aws
        both["PRESIGN_S3_ACCESS_KEY_ID"] = "AKIDPRESIGN"
        both["PRESIGN_S3_SECRET_ACCESS_KEY"] = "presign-secret"
        let fromPresign = try #require(runConfig(load(environment: both, credentials: [:])))
        #expect(fromPresign.s3.accessKeyId == "AKIDPRESIGN")
        #expect(fromPresign.s3.secretAccessKey?.unredacted == "presign-secret")

        // A key id from the file is never paired with an AWS_* secret: the set is not read at all.
        let mixed = load(
            ["--config", "/p.json"], environment: aws, files: ["/p.json": #"{"s3":{"accessKeyId":"AKIDFILE"}}"#],
            credentials: [:])
        #expect(keyPaths(mixed) == ["s3.secretAccessKey"])
    }

    @Test func secretsInTheConfigFileAreRejected() {
        let file = #"{"s3":{"secretAccessKey":"nope","sessionToken":"nope"},"auth":{"hs256Secret":"nope"}}"#
        #expect(
            problems(load(["--config", "/p.json"], files: ["/p.json": file])) == [
                ConfigProblem(
                    keyPath: "s3.secretAccessKey",
                    message:
                        "secrets are not read from the config file; set PRESIGN_S3_SECRET_ACCESS_KEY or PRESIGN_S3_SECRET_ACCESS_KEY_FILE"
                ),
                ConfigProblem(
                    keyPath: "s3.sessionToken",
                    message:
                        "secrets are not read from the config file; set PRESIGN_S3_SESSION_TOKEN or PRESIGN_S3_SESSION_TOKEN_FILE"
                ),
                ConfigProblem(
                    keyPath: "auth.hs256Secret",
                    message:
                        "secrets are not read from the config file; set PRESIGN_AUTH_HS256_SECRET or PRESIGN_AUTH_HS256_SECRET_FILE"
                ),
            ])
    }

    @Test func credentialsComeAsAPair() {
        /// The key paths of the problems of `environment` alone.
        func found(_ environment: [String: String]) -> [String] {
            keyPaths(load(environment: environment, credentials: [:]))
        }
        #expect(found(["PRESIGN_S3_ACCESS_KEY_ID": "AKID"]) == ["s3.secretAccessKey"])
        #expect(found(["PRESIGN_S3_SECRET_ACCESS_KEY": "s"]) == ["s3.accessKeyId"])
        #expect(found(["PRESIGN_S3_SECRET_ACCESS_KEY": ""]) == ["s3.secretAccessKey"])
        #expect(
            problems(load(environment: ["PRESIGN_S3_SECRET_ACCESS_KEY": "s"], credentials: [:])).first?.message
                .contains("PRESIGN_S3_ACCESS_KEY_ID") == true)
        #expect(found(["PRESIGN_S3_SESSION_TOKEN": "t"]) == ["s3.sessionToken"])
    }

    /// Without any credential and with no source but the environment the server cannot sign: both
    /// keys are required, each problem naming the variables to set; a variable that failed to load is
    /// reported once, not again as missing. (With the default sources the chain decides at start.)
    @Test func credentialsAreRequired() {
        #expect(keyPaths(load(credentials: [:])).isEmpty)
        let none = load(environment: ["PRESIGN_S3_CREDENTIAL_SOURCES": "environment"], credentials: [:])
        #expect(keyPaths(none) == ["s3.accessKeyId", "s3.secretAccessKey"])
        let messages = problems(none).map(\.message)
        for variable in ["PRESIGN_S3_ACCESS_KEY_ID", "PRESIGN_S3_ACCESS_KEY_ID_FILE", "AWS_ACCESS_KEY_ID"] {
            #expect(messages[0].contains(variable), "\(variable)")
        }
        for variable in ["PRESIGN_S3_SECRET_ACCESS_KEY", "PRESIGN_S3_SECRET_ACCESS_KEY_FILE", "AWS_SECRET_ACCESS_KEY"] {
            #expect(messages[1].contains(variable), "\(variable)")
        }
        let unreadable = load(environment: ["PRESIGN_S3_SECRET_ACCESS_KEY_FILE": "/missing"], credentials: [:])
        #expect(keyPaths(unreadable) == ["s3.secretAccessKey"])
        let aws = ["AWS_ACCESS_KEY_ID": "AKIDAWS", "AWS_SECRET_ACCESS_KEY": "aws-secret"]
        #expect(keyPaths(load(environment: aws, credentials: [:])).isEmpty)
        let fromFile = load(
            ["--config", "/p.json"], environment: ["PRESIGN_S3_SECRET_ACCESS_KEY": "s"],
            files: ["/p.json": #"{"s3":{"accessKeyId":"AKIDFILE"}}"#], credentials: [:])
        #expect(keyPaths(fromFile).isEmpty)
    }
}
