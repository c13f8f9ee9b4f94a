import AppTestSupport
import CloudCredentials
import Config
import Crypto
import Foundation
import JSON
import Records
import RecordsTestSupport
import SigV4
import Synchronization
import TestSupport
import Testing

@testable import App

/// The server's credentials in process, with an injected clock: the refresh thread's work
/// (`refreshIfDue`) rotates every signer before expiry; a failed refresh keeps the old credentials,
/// and `/readyz` fails once they have expired. The provider is the real container provider talking
/// to a loopback stand-in.
@Suite("AppCredentials: refresh, rotation and readiness with an injected clock")
struct AppCredentialsTests {
    /// 2026-11-29T08:59:31Z.
    static let start: Int64 = 1_795_942_771

    /// `epochSeconds` as RFC 3339.
    static func iso8601(_ epochSeconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(epochSeconds)))
    }

    /// The agent's answer: key `id`, expiring at `expiration`, with a token.
    static func answer(_ id: String, expiration: Int64) -> StandInServer.Reply {
        StandInServer.json(
            200,
            #"{"AccessKeyId":"\#(id)","SecretAccessKey":"secret-\#(id)","Token":"token-\#(id)","Expiration":"\#(iso8601(expiration))"}"#
        )
    }

    @Test func refreshRotatesBeforeExpiryAndAFailureKeepsTheOldCredentialsUntilTheyExpire() throws {
        let clock = Mutex<Int64>(Self.start)
        let replies = Mutex<[StandInServer.Reply]>([
            Self.answer("ASIAFIRST", expiration: Self.start + 3600),
            Self.answer("ASIASECOND", expiration: Self.start + 7200),
            StandInServer.json(500, #"{"Code":"InternalError","Message":"agent broke"}"#),
        ])
        let agent = try StandInServer { index, _ in replies.withLock { $0[min(index, $0.count - 1)] } }
        defer { agent.stop() }
        let context = CredentialsContext(
            environment: [
                "AWS_CONTAINER_CREDENTIALS_FULL_URI": agent.baseURL + "/creds", "AWS_EC2_METADATA_DISABLED": "true",
            ], now: { clock.withLock { $0 } }, random: { _ in 0 }, sleep: { _ in })
        let provider = ContainerCredentialsProvider(
            context: context, options: ContainerOptions(remote: RemoteProviderOptions(maxRetries: 0)))
        let initial = try provider.fetch()

        var config = PresigndConfig.defaults
        config.s3.endpoint = "http://127.0.0.1:9"
        config.presign.temporaryCredentialsWithClientP = .warn
        let signers = try Application.makeSigners(config.s3, credentials: initial.credentials)
        let sink = LogFile()
        let credentials = Application.makeCredentials(
            config, provider: provider, initial: initial, signers: signers,
            env: AppEnvironment(nowMillis: { clock.withLock { $0 } * 1000 }, newUUID: { "u" }), log: sink.sink,
            random: { _ in 0 })
        let refresher = try #require(credentials.refresher)
        let ops = OpsService(
            store: InMemoryRecordStore(), metrics: { "" }, storageCheck: { [credentials.readinessCheck()] })
        func ready() throws -> (Int, String?) {
            let r = ops.readiness()
            return (r.status, try JSONValue(parsing: r.body)["checks"]?["credentials"]?.stringValue)
        }
        func keyId(_ signer: RotatingPresigner) -> String { signer.current.accessKeyId }

        // Refresh is due 15 minutes before expiry (jitter 0 here), not before.
        #expect(refresher.nextRefresh == Self.start + 3600 - 900)
        clock.withLock { $0 = Self.start + 3600 - 901 }
        #expect(!refresher.refreshIfDue())
        #expect(keyId(signers.configured) == "ASIAFIRST")
        clock.withLock { $0 = Self.start + 3600 - 900 }
        #expect(refresher.refreshIfDue())
        for signer in [signers.pathStyle, signers.configured, signers.internalSigner] {
            #expect(keyId(signer) == "ASIASECOND")
            #expect(signer.current.credentialsExpiration == Self.start + 7200)
        }
        let url = try signers.configured.presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: 600), now: clock.withLock { $0 })
        #expect(url.url.contains("X-Amz-Security-Token=token-ASIASECOND&"))
        #expect(try ready() == (200, "ok"))
        #expect(sink.lines.contains { $0.contains(#""msg":"credentials refreshed""#) })

        // The next refresh fails: the second credentials stay in use, with a warning and a count.
        clock.withLock { $0 = Self.start + 7200 - 900 }
        #expect(refresher.refreshIfDue())
        #expect(refresher.failureCount == 1)
        #expect(keyId(signers.configured) == "ASIASECOND")
        let warning = try #require(sink.lines.first { $0.contains(#""msg":"credentials refresh failed""#) })
        #expect(warning.contains(#""level":"warn""#) && warning.contains("InternalError"))
        #expect(!warning.contains("secret-ASIA") && !warning.contains("token-ASIA"))
        #expect(try ready() == (200, "ok"), "still valid until they expire")
        // Shortly before expiry, URLs are clamped to what is left, then refused under the minimum.
        clock.withLock { $0 = Self.start + 7200 - 120 }
        let short = try signers.configured.presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: 600), now: clock.withLock { $0 })
        #expect(short.expiresAt == Self.start + 7200)
        #expect(short.url.contains("&X-Amz-Expires=120&"))
        clock.withLock { $0 = Self.start + 7200 - 30 }
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 30)) {
            try signers.configured.presign(
                PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: 600),
                now: clock.withLock { $0 })
        }

        // After expiry, with the agent still failing: not ready, saying why; signing stops.
        clock.withLock { $0 = Self.start + 7200 }
        #expect(refresher.refresh())
        let (status, text) = try ready()
        #expect(status == 503)
        #expect(
            text?.contains("the credentials from container expired at 2026-11-29T10:59:31") == true, "\(text ?? "")")
        #expect(text?.contains("last refresh: container: HTTP 500 InternalError") == true, "\(text ?? "")")
        #expect(sink.lines.contains { $0.contains("credentials expired") && $0.contains(#""level":"error""#) })
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 0)) {
            try signers.internalSigner.signHeaders(method: "HEAD", bucket: "uploads", key: "a", now: Self.start + 7200)
        }
        #expect(!credentials.hasValidCredentials)
        // client P's routes are served, and rotated credentials carry a token: warned at rotation.
        #expect(sink.lines.contains { $0.contains("client P's uploads will fail") })
    }
}
