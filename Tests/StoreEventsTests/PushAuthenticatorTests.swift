import Crypto
import Testing

@testable import StoreEvents

/// The shared secrets of RGW's push (`opaqueData`) and MinIO's webhook (`Authorization`).
@Suite struct PushAuthenticatorTests {
    /// An RGW body whose records carry these opaque data (nil: none).
    static func rgwBody(_ opaque: [String?]) -> [UInt8] {
        let records = opaque.map { value -> String in
            let field = value.map { #","opaqueData":"\#($0)""# } ?? ""
            return
                #"{"eventSource":"ceph:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"k","size":1}}\#(field)}"#
        }
        return Array((#"{"Records":["# + records.joined(separator: ",") + "]}").utf8)
    }

    @Test func rgwPushesNeedTheSecretInEveryRecord() throws {
        let auth = PushAuthenticator(secret: Secret("s3cr3t-token"))
        #expect(try auth.rgwPush(body: Self.rgwBody(["s3cr3t-token", "s3cr3t-token"])).events.count == 2)
        for opaque: [String?] in [
            [], [nil], ["wrong"], ["s3cr3t-token", nil], ["s3cr3t-token", "s3cr3t-tokeN"], ["s3cr3t-token "],
        ] {
            #expect(throws: StoreEventsError.self, "\(opaque)") { try auth.rgwPush(body: Self.rgwBody(opaque)) }
            do throws(StoreEventsError) {
                _ = try auth.rgwPush(body: Self.rgwBody(opaque))
            } catch {
                guard case .unauthenticated(let reason) = error else {
                    Issue.record("\(opaque): \(error)")
                    continue
                }
                #expect(!reason.contains("s3cr3t"))
            }
        }
        // Not JSON is malformed before any secret is looked at.
        do throws(StoreEventsError) {
            _ = try auth.rgwPush(body: Array("{".utf8))
            Issue.record("a body that is not JSON was taken")
        } catch {
            guard case .malformed = error else {
                Issue.record("not JSON gave \(error)")
                return
            }
        }
    }

    /// minio/minio internal/event/target/webhook.go: a one-word token goes as `Bearer <token>`, a two-word
    /// one (`<scheme> <token>`) as it is.
    @Test func minioSendsItsTokenAsBearerOrAsItIs() throws {
        let body = Self.rgwBody([nil]).map { $0 }
        let minioBody = Array(
            String(decoding: body, as: UTF8.self).replacingOccurrences(of: "ceph:s3", with: "minio:s3").utf8)
        let bearer = PushAuthenticator(secret: Secret("tok123"))
        #expect(try bearer.minioWebhook(authorization: "Bearer tok123", body: minioBody).events.count == 1)
        for header in [nil, "", "tok123", "Bearer tok1234", "bearer tok123", "Bearer  tok123", "Basic tok123"] {
            #expect(throws: StoreEventsError.self, "\(header ?? "nil")") {
                try bearer.minioWebhook(authorization: header, body: minioBody)
            }
        }
        let twoWords = PushAuthenticator(secret: Secret("Token abc"))
        #expect(try twoWords.minioWebhook(authorization: "Token abc", body: minioBody).events.count == 1)
        #expect(throws: StoreEventsError.self) {
            try twoWords.minioWebhook(authorization: "Bearer Token abc", body: minioBody)
        }
    }
}
