import Crypto
import Testing

@testable import Webhooks

/// The Standard Webhooks signature, the secret's form, the retry schedule and endpoint URLs.
@Suite struct WebhookSignerTests {
    /// The specification's example (standard-webhooks, `spec/standard-webhooks.md`, and every reference
    /// library's tests): this secret, id, timestamp and payload sign to this value.
    @Test func theSpecificationsExampleSignsToItsSignature() throws {
        let secret = try WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let signer = WebhookSigner(current: secret)
        let body = Array(#"{"test": 2432232314}"#.utf8)
        #expect(
            signer.signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
                == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test func duringARotationBothSecretsSignSpaceSeparated() throws {
        let old = try WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
        let new = try WebhookSecret(parsing: "whsec_" + Base64.encode(Array(repeating: UInt8(7), count: 32)))
        let body = Array(#"{"test": 2432232314}"#.utf8)
        let both = WebhookSigner(current: new, previous: old)
            .signature(id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body)
        let parts = both.split(separator: " ").map(String.init)
        #expect(parts.count == 2)
        #expect(parts[1] == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        #expect(
            parts[0]
                == WebhookSigner(current: new).signature(
                    id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, body: body))
        let headers = WebhookSigner(current: new).headers(id: "e1", timestamp: 5, body: [1, 2])
        #expect(headers.map(\.name) == ["webhook-id", "webhook-timestamp", "webhook-signature"])
        #expect(headers[0].value == "e1" && headers[1].value == "5" && headers[2].value.hasPrefix("v1,"))
    }

    @Test func aTamperedBodyIdOrTimestampSignsDifferently() throws {
        let signer = WebhookSigner(current: try WebhookSecret(parsing: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let body = Array(#"{"a":1}"#.utf8)
        let reference = signer.signature(id: "e", timestamp: 10, body: body)
        #expect(signer.signature(id: "e", timestamp: 10, body: Array(#"{"a":2}"#.utf8)) != reference)
        #expect(signer.signature(id: "f", timestamp: 10, body: body) != reference)
        #expect(signer.signature(id: "e", timestamp: 11, body: body) != reference)
    }

    @Test(arguments: [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "it must start with whsec_"),
        ("whsec_not base64!", "what follows whsec_ must be base64"),
        ("whsec_AAAA", "it must hold 16 to 1024 bytes (it holds 3)"),
    ])
    func secretsThatCannotBeUsedAreRefused(text: String, reason: String) {
        #expect(throws: WebhookError.invalidSecret(reason)) { try WebhookSecret(parsing: text) }
        // Never the secret in what is shown.
        #expect("\(WebhookError.invalidSecret(reason))".contains("whsec_AAAA") == false)
    }

    @Test func anUnpaddedSecretIsTakenAsThePythonLibraryTakesIt() throws {
        let padded = try WebhookSecret(parsing: "whsec_" + Base64.encode(Array(repeating: UInt8(1), count: 17)))
        let unpadded = try WebhookSecret(
            parsing: "whsec_" + Base64.encode(Array(repeating: UInt8(1), count: 17), padded: false))
        #expect(
            WebhookSigner(current: padded).signature(id: "a", timestamp: 1, body: [])
                == WebhookSigner(current: unpadded).signature(id: "a", timestamp: 1, body: []))
        #expect("\(padded)" == "<redacted>")
    }

    @Test func theDefaultScheduleSpansAboutADayWithJitterWithinAQuarter() {
        let schedule = RetrySchedule(baseMs: 5_000, maxMs: 3_600_000, maxAttempts: 33)
        #expect((20 * 3_600_000...28 * 3_600_000).contains(schedule.spanMs), "\(schedule.spanMs)")
        #expect(schedule.delayMs(afterAttempt: 1, unit: 0.5) == 5_000)
        #expect(schedule.delayMs(afterAttempt: 2, unit: 0.5) == 10_000)
        #expect(schedule.delayMs(afterAttempt: 1, unit: 0) == 3_750)
        #expect(schedule.delayMs(afterAttempt: 1, unit: 0.999_999) == 6_250)
        #expect(schedule.delayMs(afterAttempt: 20, unit: 0.5) == 3_600_000)
        #expect(schedule.delayMs(afterAttempt: 32, unit: 0.5) == 3_600_000)
        #expect(schedule.delayMs(afterAttempt: 33, unit: 0.5) == nil)
        // Doubling never overflows, however many attempts.
        #expect(RetrySchedule(baseMs: 1, maxMs: 100, maxAttempts: 1000).delayMs(afterAttempt: 900, unit: 0.5) == 100)
        #expect(RetrySchedule(baseMs: 50, maxMs: 50, maxAttempts: 1).delayMs(afterAttempt: 1, unit: 0.5) == nil)
    }

    @Test func endpointURLsAreSplitForTheClient() throws {
        let a = try WebhookURL(parsing: "https://hooks.example.com/presignd?token=abc")
        #expect(a.usesTLS && a.host == "hooks.example.com" && a.port == 443 && a.target == "/presignd?token=abc")
        #expect("\(a)" == "https://hooks.example.com/presignd")
        let b = try WebhookURL(parsing: "http://127.0.0.1:8089")
        #expect(!b.usesTLS && b.host == "127.0.0.1" && b.port == 8089 && b.target == "/")
        let c = try WebhookURL(parsing: "http://[::1]:9/x")
        #expect(c.host == "[::1]" && c.port == 9 && c.target == "/x")
        #expect(try WebhookURL(parsing: "http://h?x=1").target == "/?x=1")
        for bad in ["ftp://h/", "http://", "http://u:p@h/", "http://h:0/", "http://h/#f", "http://h/a b"] {
            #expect(throws: WebhookError.self) { try WebhookURL(parsing: bad) }
        }
    }
}
