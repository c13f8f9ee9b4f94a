import Testing

@testable import Config

@Suite struct ConfigKeyTests {
    @Test(arguments: [
        ("maxConnections", "MAX_CONNECTIONS"), ("hs256Secret", "HS256_SECRET"), ("accessKeyId", "ACCESS_KEY_ID"),
        ("cdnBaseUrl", "CDN_BASE_URL"), ("port", "PORT"), ("s3", "S3"),
        ("readUrlExpiresSeconds", "READ_URL_EXPIRES_SECONDS"),
    ])
    func upperSnakeCase(_ camel: String, _ snake: String) {
        #expect(ConfigKey.upperSnake(camel) == snake)
    }

    @Test func variableNamesFollowTheRule() throws {
        let names = Dictionary(uniqueKeysWithValues: ConfigKey.all.map { ($0.path, $0.environmentVariable) })
        #expect(names["server.maxConnections"] == "PRESIGN_SERVER_MAX_CONNECTIONS")
        #expect(names["s3.secretAccessKey"] == "PRESIGN_S3_SECRET_ACCESS_KEY")
        #expect(names["auth.hs256Secret"] == "PRESIGN_AUTH_HS256_SECRET")
        #expect(names["presign.expiresSeconds"] == "PRESIGN_PRESIGN_EXPIRES_SECONDS")
        #expect(names["auth.jwtPublicKeyFiles"] == "PRESIGN_AUTH_JWT_PUBLIC_KEY_FILES")
        #expect(names["auth.jwksFile"] == "PRESIGN_AUTH_JWKS_FILE")
        #expect(names["limits.issuePerUserPerMinute"] == "PRESIGN_LIMITS_ISSUE_PER_USER_PER_MINUTE")
        #expect(names["tls.privateKeyFile"] == "PRESIGN_TLS_PRIVATE_KEY_FILE")
        #expect(Set(names.values).count == ConfigKey.all.count)
        // No `*_FILE` variable of one key is the variable of another (tls.privateKeyFile ends in _FILE).
        let fileVariables = ConfigKey.all.filter(\.allowsFileVariable).map { $0.environmentVariable + "_FILE" }
        #expect(Set(fileVariables).isDisjoint(with: names.values))
    }

    /// docs/operations.md documents every key and its variable, so the table cannot drift.
    @Test func theOperationsGuideListsEveryKey() throws {
        let guide = String(
            decoding: try ConfigLoader.readFile(atPath: repositoryPath("docs/operations.md")), as: UTF8.self)
        for key in ConfigKey.all {
            #expect(guide.contains("`\(key.path)`"), "docs/operations.md lacks \(key.path)")
            #expect(
                guide.contains("`\(key.environmentVariable)`"), "docs/operations.md lacks \(key.environmentVariable)")
            if key.allowsFileVariable {
                #expect(
                    guide.contains("`\(key.environmentVariable)_FILE`"), "docs/operations.md lacks the _FILE variable")
            }
            if let fallback = key.fallbackVariable { #expect(guide.contains("`\(fallback)`")) }
        }
    }

    @Test func theDefaultFileReaderReportsTheSystemsReason() throws {
        #expect(
            throws: FileReadError.cannotOpen(path: "/nonexistent/presignd.json", reason: "No such file or directory")
        ) {
            try ConfigLoader.readFile(atPath: "/nonexistent/presignd.json")
        }
        #expect(try ConfigLoader.readFile(atPath: repositoryPath("config/presignd.json")).count > 1000)
    }
}
