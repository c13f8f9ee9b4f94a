import AppTestSupport
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A new user's first hour (issue 19): the binary with no credentials, a mistyped variable, the health
/// check of a server started with flags, an SQLite directory that cannot be written, and the development
/// token command; a missing shared credentials file, and the token accepted, by the application in
/// process.
@Suite("presignd binary: the first hour", .heavy)
struct FirstHourBinaryTests {
    /// The server's environment with no static keys.
    static func withoutKeys(_ extra: [String: String] = [:]) -> [String: String] {
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        env["PRESIGN_S3_ACCESS_KEY_ID"] = nil
        env["PRESIGN_S3_SECRET_ACCESS_KEY"] = nil
        env["HOME"] = Temporary.directory()  // no ~/.aws files there
        for (k, v) in extra { env[k] = v }
        return env
    }

    @Test("no credentials with the default sources, off EC2: --check-config exits 0 with a note, a start exits 2")
    func noCredentialsOffEC2() async throws {
        // The metadata service of a machine that is not on EC2: nothing answers (a closed loopback port
        // stands in for 169.254.169.254, which no test may reach).
        let closed = try StandInServer(replies: [.close])
        let endpoint = closed.baseURL
        closed.stop()
        let env = Self.withoutKeys([
            "AWS_EC2_METADATA_DISABLED": "false", "AWS_EC2_METADATA_SERVICE_ENDPOINT": endpoint,
        ])
        let check = try ServerProcess(environment: env, arguments: ["--check-config"], expectListening: false)
        #expect(await check.exit() == 0)
        #expect(check.stderr.contains("presignd: note: no static S3 keys"), "\(check.stderr)")
        #expect(check.stderr.contains("the start exits 2"), "the note says what a start will do: \(check.stderr)")
        let start = try ServerProcess(environment: env, expectListening: false)
        #expect(
            await start.exit(within: 30) == 2,
            "no credentials is a configuration problem (2), not a part failing (1)")
        let line = try #require(await start.line(containing: #""msg":"cannot start""#))
        #expect(line.contains("no instance metadata service answered at \(endpoint) (not on EC2?)"), "\(line)")
        #expect(line.contains("set PRESIGN_S3_ACCESS_KEY_ID and PRESIGN_S3_SECRET_ACCESS_KEY"), "\(line)")
    }

    @Test("a mistyped PRESIGN_ variable: exit 2 naming the variable it meant; the test suite's own pass")
    func mistypedVariable() async throws {
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        env["PRESIGN_BUCKET"] = "my-bucket"
        let start = try ServerProcess(environment: env, expectListening: false)
        #expect(await start.exit() == 2)
        #expect(
            start.stderr.contains(
                "presignd: configuration: PRESIGN_BUCKET: unknown variable (no configuration key has this name; did you mean PRESIGN_S3_BUCKET?)"
            ), "\(start.stderr)")
        env["PRESIGN_BUCKET"] = nil
        env["PRESIGN_TEST_S3_ENDPOINT"] = "http://127.0.0.1:9"
        env["PRESIGN_SKIP_S3"] = "1"
        let server = try await ServerProcess(environment: env)
        server.stop()
    }

    @Test("AWS_SHARED_CREDENTIALS_FILE naming a missing file: skipped with a warning, the config file's keys serve")
    func missingSharedCredentialsFile() async throws {
        let dir = Temporary.directory()
        let config = dir + "/config"
        try
            "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let env = Self.withoutKeys([
            "AWS_SHARED_CREDENTIALS_FILE": dir + "/no-such-credentials", "AWS_CONFIG_FILE": config,
        ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let warning = try #require(await server.log.line(containing: #""msg":"credentials warning""#))
        #expect(warning.contains("AWS_SHARED_CREDENTIALS_FILE names \(dir)/no-such-credentials, which does not exist"))
        let credentials = try #require(await server.log.line(containing: #""msg":"credentials""#))
        #expect(credentials.contains(#""provider":"shared files""#), "\(credentials)")
    }

    @Test("healthcheck probes the port the server wrote to server.listenInfoPath, not its own configuration's")
    func healthcheckFollowsTheRunningServer() async throws {
        let dir = Temporary.directory()
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        env["PRESIGN_SERVER_LISTEN_INFO_PATH"] = dir + "/listen.json"
        // The server is given its port by a flag (0: the system picks one), as `docker run IMAGE --port N`.
        let server = try await ServerProcess(environment: env, arguments: ["--port", "0"])
        let info = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/listen.json")))
        #expect((info as? [String: Any])?["port"] as? Int == server.port)
        // The check sees neither the flag nor the real port: PRESIGN_SERVER_PORT is 0 in its environment.
        let healthy = try ServerProcess(environment: env, arguments: ["healthcheck"], expectListening: false)
        #expect(await healthy.exit() == 0, "\(healthy.stdout) \(healthy.stderr)")
        #expect(healthy.stdout.contains("127.0.0.1:\(server.port)/healthz: HTTP 200"), "\(healthy.stdout)")
        // Its own --port still wins.
        let flagged = try ServerProcess(
            environment: env, arguments: ["healthcheck", "--port", "1"], expectListening: false)
        #expect(await flagged.exit() == 1)
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: dir + "/listen.json"), "a clean stop removes the file")
        let gone = try ServerProcess(environment: env, arguments: ["healthcheck"], expectListening: false)
        #expect(await gone.exit() == 1)
    }

    @Test(
        "SQLite where no database can be made (under a file, in a directory this uid may not write): the path and why")
    func sqliteCannotOpen() async throws {
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        let file = Temporary.directory() + "/a-file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        env["PRESIGN_RECORDS_URL"] = "sqlite:\(file)/presignd.sqlite3"
        let underAFile = try ServerProcess(environment: env, expectListening: false)
        #expect(await underAFile.exit() == 1)
        let line = try #require(await underAFile.line(containing: #""msg":"cannot start""#))
        #expect(
            line.contains("cannot open SQLite database \(file)/presignd.sqlite3: unable to open database file"),
            "\(line)")
        #expect(line.contains("\(file) is not a directory"), "\(line)")
        // As the image's uid 999 in a directory it does not own (only root can switch users).
        guard getuid() == 0 else { return }
        let dir = Temporary.directory()
        chmod(dir, 0o755)
        env["PRESIGN_RECORDS_URL"] = "sqlite:\(dir)/presignd.sqlite3"
        let denied = try ServerProcess(
            environment: env, expectListening: false,
            launcher: ["/usr/bin/setpriv", "--reuid=999", "--regid=999", "--clear-groups"])
        #expect(await denied.exit() == 1)
        let refusal = try #require(await denied.line(containing: #""msg":"cannot start""#))
        #expect(refusal.contains("the directory \(dir) is not writable by this process (uid 999)"), "\(refusal)")
    }

    @Test("presignd token: a token the server in jwt mode accepts for that user; without the secret, exit 2")
    func developmentToken() async throws {
        let secret = "development-hs256-secret-of-40-bytes!!!!"
        var env = TestEnvironment.serverEnvironment(s3: nil).env
        env["PRESIGN_AUTH_MODE"] = "jwt"
        env["PRESIGN_AUTH_JWT_ALGORITHMS"] = "HS256"
        env["PRESIGN_AUTH_HS256_SECRET"] = secret
        let minted = try ServerProcess(
            environment: env, arguments: ["token", "--user", "42", "--ttl", "10m"], expectListening: false)
        #expect(await minted.exit() == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.split(separator: ".").count == 3)
        // The application that configuration serves (in process) takes it.
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let answer = try await server.exchange(
            "GET", "/presigned-url?type=PROFILE&ext=jpg", headers: "Authorization: Bearer \(token)\r\n")
        #expect(answer.status == 200, "\(answer.text)")
        #expect(answer.text.contains("delete/profile/42/"), "the key holds the token's user")

        env["PRESIGN_AUTH_HS256_SECRET"] = nil
        env["PRESIGN_AUTH_MODE"] = "dev"
        env["PRESIGN_AUTH_JWT_ALGORITHMS"] = nil
        let refused = try ServerProcess(environment: env, arguments: ["token", "--user", "42"], expectListening: false)
        #expect(await refused.exit() == 2)
        #expect(refused.stderr.contains("auth.hs256Secret is not set"), "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
    }
}
