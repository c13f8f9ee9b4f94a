import Config
import Testing

/// The `webhooks` section: defaults, the environment, the file's endpoints, secrets and what the
/// validator refuses.
@Suite struct WebhooksConfigTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    private func paths(_ json: String, environment: [String: String] = [:]) -> [String] {
        problems(load(["--config", "/p.json"], environment: environment, files: ["/p.json": json])).map(\.keyPath)
    }

    @Test func offByDefaultWithTheDocumentedSchedule() throws {
        let c = try #require(runConfig(load()))
        #expect(c.webhooks == WebhooksConfig())
        #expect(!c.webhooks.enabled && c.webhooks.allEndpoints.isEmpty)
        #expect(c.webhooks.timeoutMs == 10_000 && c.webhooks.maxAttempts == 33)
        #expect(c.webhooks.backoffBaseMs == 5000 && c.webhooks.backoffMaxMs == 3_600_000)
        #expect(c.webhooks.retentionHours == 72 && c.webhooks.pollIntervalMs == 250 && c.webhooks.concurrency == 4)
    }

    @Test func theEnvironmentGivesTheDefaultEndpointAndTheSecrets() throws {
        let c = try #require(
            runConfig(
                load(environment: [
                    "PRESIGN_WEBHOOKS_URL": "https://hooks.example.com/p?token=1",
                    "PRESIGN_WEBHOOKS_EVENTS": "upload.completed,upload.deleted",
                    "PRESIGN_WEBHOOKS_SECRET": Self.secret, "PRESIGN_WEBHOOKS_MAX_ATTEMPTS": "5",
                ])))
        #expect(c.webhooks.enabled)
        #expect(
            c.webhooks.allEndpoints == [
                WebhookEndpointConfig(
                    name: "default", url: "https://hooks.example.com/p?token=1",
                    events: ["upload.completed", "upload.deleted"])
            ])
        #expect(c.webhooks.allEndpoints[0].wants(.deleted) && !c.webhooks.allEndpoints[0].wants(.expired))
        #expect(c.webhooks.secret?.unredacted == Self.secret && c.webhooks.maxAttempts == 5)
        // Printed, the secret is redacted.
        #expect(!c.redactedJSON().contains(Self.secret))
        #expect(c.redactedJSON().contains(#""secret" : "<redacted>""#) || c.redactedJSON().contains("<redacted>"))
    }

    @Test func theFileListsEndpointsEachWithItsEvents() throws {
        let file = #"""
            {"webhooks": {"endpoints": [
              {"name": "profiles", "url": "http://127.0.0.1:8089/h", "events": ["upload.completed"]},
              {"name": "moderation", "url": "https://mod.example.com/presignd"}]}}
            """#
        let c = try #require(
            runConfig(
                load(
                    ["--config", "/p.json"], environment: ["PRESIGN_WEBHOOKS_SECRET": Self.secret],
                    files: ["/p.json": file])))
        #expect(c.webhooks.allEndpoints.map(\.name) == ["profiles", "moderation"])
        #expect(c.webhooks.endpoints[1].wants(.rejected) && !c.webhooks.endpoints[0].wants(.rejected))
        #expect(c.redactedJSON().contains("mod.example.com/presignd"))
    }

    @Test func whatTheValidatorRefuses() {
        let env = ["PRESIGN_WEBHOOKS_SECRET": Self.secret]
        // An endpoint needs the secret.
        #expect(paths(#"{"webhooks":{"url":"http://127.0.0.1:1/"}}"#) == ["webhooks.secret"])
        #expect(paths(#"{"webhooks":{"url":"http://127.0.0.1:1/"}}"#, environment: env) == [])
        #expect(paths(#"{"webhooks":{"url":"ftp://x/"}}"#, environment: env) == ["webhooks.url"])
        #expect(paths(#"{"webhooks":{"url":"http://u:p@x/"}}"#, environment: env) == ["webhooks.url"])
        #expect(paths(#"{"webhooks":{"events":["upload.made"]}}"#) == ["webhooks.events[0]"])
        #expect(
            paths(
                #"{"webhooks":{"url":"http://a/","endpoints":[{"name":"default","url":"http://b/"},{"name":"B!","url":"x"}]}}"#,
                environment: env) == [
                    "webhooks.endpoints[0].name", "webhooks.endpoints[1].name", "webhooks.endpoints[1].url",
                ])
        #expect(
            paths(#"{"webhooks":{"endpoints":[{"name":"a","url":"http://b/","events":["x"]}]}}"#, environment: env)
                == ["webhooks.endpoints[0].events[0]"])
        #expect(paths(#"{"webhooks":{"endpoints":[{"name":"a"}]}}"#) == ["webhooks.endpoints[0]"])
        #expect(
            paths(#"{"webhooks":{"endpoints":[{"name":"a","url":"http://b/","x":1}]}}"#).contains(
                "webhooks.endpoints[0].x"))
        // Secrets only from the environment or a file, and in their form.
        #expect(paths(#"{"webhooks":{"secret":"whsec_x"}}"#) == ["webhooks.secret"])
        #expect(paths("{}", environment: ["PRESIGN_WEBHOOKS_SECRET": "not-whsec"]) == ["webhooks.secret"])
        #expect(paths("{}", environment: ["PRESIGN_WEBHOOKS_SECRET": "whsec_AAAA"]) == ["webhooks.secret"])
        #expect(
            paths("{}", environment: ["PRESIGN_WEBHOOKS_PREVIOUS_SECRET": Self.secret]) == ["webhooks.previousSecret"])
        // A request must end within the lease the deliveries run under.
        #expect(
            paths(#"{"webhooks":{"url":"http://a/","timeoutMs":20000}}"#, environment: env) == ["webhooks.timeoutMs"])
        #expect(
            paths(
                #"{"webhooks":{"url":"http://a/","timeoutMs":20000},"records":{"leaseTtlMs":60000}}"#, environment: env)
                == [])
        #expect(paths(#"{"webhooks":{"backoffBaseMs":10,"backoffMaxMs":5}}"#) == ["webhooks.backoffMaxMs"])
        #expect(paths(#"{"webhooks":{"concurrency":0,"maxAttempts":0,"retentionHours":0}}"#).count == 3)
    }
}
