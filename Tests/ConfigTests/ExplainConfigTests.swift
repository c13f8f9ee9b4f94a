import Config
import Crypto
import JSON
import Testing

/// `explain.enabled`, the `admin` scope of API keys, and `presignd explain`'s command line.
@Suite struct ExplainConfigTests {
    static let digest = SHA256.hash("ops-key").hex
    static let other = SHA256.hash("backend-key").hex

    @Test func offByDefault() throws {
        let config = try #require(runConfig(load()))
        #expect(config.explain.enabled == false)
        #expect(config.auth.apiKeys.isEmpty)
        let printed = try JSONValue(parsing: config.redactedJSON())
        #expect(printed["explain"]?["enabled"] == false)
    }

    @Test func adminScopeFromTheFileAndTheEnvironment() throws {
        let file =
            #"{"explain": {"enabled": true}, "auth": {"apiKeys": [{"id": "ops", "sha256": "\#(Self.digest)", "scopes": ["admin"]}, {"id": "backend", "sha256": "\#(Self.other)"}]}}"#
        let fromFile = load(["--config", "/p.json"], files: ["/p.json": file])
        let config = try #require(runConfig(fromFile), "\(problems(fromFile))")
        #expect(config.explain.enabled)
        #expect(
            config.auth.apiKeys == [
                APIKeyConfig(id: "ops", sha256: Self.digest, scopes: ["admin"]),
                APIKeyConfig(id: "backend", sha256: Self.other),
            ])
        #expect(config.auth.apiKeys.map(\.isAdmin) == [true, false])
        let printed = try JSONValue(parsing: config.redactedJSON())
        #expect(printed["auth"]?["apiKeys"]?.arrayValue?.first?["scopes"] == .array(["admin"]))
        #expect(printed["auth"]?["apiKeys"]?.arrayValue?.last?["scopes"] == nil)

        let fromEnvironment = load(environment: [
            "PRESIGN_EXPLAIN_ENABLED": "true",
            "PRESIGN_AUTH_API_KEYS": "ops:\(Self.digest):admin, backend:\(Self.other)",
        ])
        let environmentConfig = try #require(runConfig(fromEnvironment), "\(problems(fromEnvironment))")
        #expect(environmentConfig.auth.apiKeys == config.auth.apiKeys)
        #expect(environmentConfig.explain.enabled)
    }

    @Test func refusals() {
        let withoutKeys = problems(load(environment: ["PRESIGN_EXPLAIN_ENABLED": "true"]))
        #expect(withoutKeys.map(\.keyPath) == ["explain.enabled"])
        #expect(withoutKeys.first?.message.hasPrefix("needs an API key with the admin scope in auth.apiKeys") == true)
        #expect(
            problems(
                load(environment: [
                    "PRESIGN_EXPLAIN_ENABLED": "true", "PRESIGN_AUTH_API_KEYS": "backend:\(Self.other)",
                ])
            ).map(\.keyPath) == ["explain.enabled"])
        let unknownScope = load(environment: ["PRESIGN_AUTH_API_KEYS": "ops:\(Self.digest):root"])
        #expect(problems(unknownScope).map(\.keyPath) == ["auth.apiKeys[0].scopes"])
        let file = #"{"auth": {"apiKeys": [{"id": "ops", "sha256": "\#(Self.digest)", "scopes": "admin"}]}}"#
        #expect(
            problems(load(["--config", "/p.json"], files: ["/p.json": file])).map(\.keyPath) == [
                "auth.apiKeys[0].scopes"
            ])
    }

    @Test func theExplainCommandLine() throws {
        let result = load([
            "explain", "https://s3.example.com/b/k?X-Amz-Date=1", "--header", "Content-Type: image/png",
            "--header=Host: s3.example.com", "--method", "put", "--error-xml", "/tmp/e.xml", "--port", "9",
        ])
        guard case .success(.explain(let config, let arguments)) = result else {
            Issue.record("not an explain action: \(result)")
            return
        }
        #expect(config.server.port == 9)
        #expect(
            arguments
                == ExplainArguments(
                    url: "https://s3.example.com/b/k?X-Amz-Date=1",
                    headers: ["Content-Type: image/png", "Host: s3.example.com"], method: "put",
                    errorXMLPath: "/tmp/e.xml"))
        #expect(
            problems(load(["explain"])) == [
                ConfigProblem(keyPath: "explain", message: "requires the URL the client requested")
            ])
        #expect(problems(load(["explain", "u", "v"])).map(\.keyPath) == ["v"])
        #expect(problems(load(["explain", "u", "--header"])).map(\.keyPath) == ["--header"])
        // Without the word explain, its flags are unknown.
        #expect(problems(load(["--method", "PUT"])).map(\.keyPath) == ["--method", "PUT"])
        #expect(ConfigLoader.helpText.contains("presignd explain URL"))
    }
}
