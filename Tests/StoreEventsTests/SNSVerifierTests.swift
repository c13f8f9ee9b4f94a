import Crypto
import JSON
import Synchronization
import Testing

@testable import StoreEvents

/// SNS message verification with a local test CA and keys made by the tests.
@Suite struct SNSVerifierTests {
    static let topic = "arn:aws:sns:eu-west-1:123456789012:uploads"
    static let certURL = "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem"

    /// The S3 event SNS carries in `Message`.
    static let s3Event =
        #"{"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"photos"},"object":{"key":"u%2F1.jpg","size":3,"eTag":"abc"}}}]}"#

    /// The string SNS signs for a Notification, written out field by field as AWS documents it
    /// ("Verifying the signatures of Amazon SNS messages": Message, MessageId, Subject if any, Timestamp,
    /// TopicArn, Type, each as name, newline, value, newline).
    static func notificationStringToSign(message: String, id: String, subject: String?, timestamp: String) -> String {
        "Message\n\(message)\nMessageId\n\(id)\n" + (subject.map { "Subject\n\($0)\n" } ?? "")
            + "Timestamp\n\(timestamp)\nTopicArn\n\(topic)\nType\nNotification\n"
    }

    /// The same for the confirmations: Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type.
    static func confirmationStringToSign(
        type: String, message: String, id: String, url: String, token: String, timestamp: String
    )
        -> String
    {
        "Message\n\(message)\nMessageId\n\(id)\nSubscribeURL\n\(url)\nTimestamp\n\(timestamp)\nToken\n\(token)\nTopicArn\n\(topic)\nType\n\(type)\n"
    }

    /// An SNS body with `fields` and a `Signature` over `stringToSign` by `keyPEM`.
    static func body(
        _ fields: [(String, String)], stringToSign: String, keyPEM: [UInt8], version: String = "1",
        certURL: String = certURL
    ) throws -> [UInt8] {
        let key = try PrivateKey(pem: keyPEM)
        let signature = try key.sign(
            Array(stringToSign.utf8), algorithm: version == "1" ? .rsaPKCS1v15SHA1 : .rsaPKCS1v15SHA256)
        var object = JSONObject()
        for (name, value) in fields + [
            ("TopicArn", topic), ("SignatureVersion", version), ("Signature", Base64.encode(signature)),
            ("SigningCertURL", certURL), ("UnsubscribeURL", "https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe"),
        ] {
            _ = object.append(key: name, value: .string(value))
        }
        return JSONValue.object(object).serialized()
    }

    /// A notification body signed by the test signer.
    static func notification(
        version: String = "1", subject: String? = "Amazon S3 Notification", keyPEM: [UInt8]? = nil,
        certURL: String = certURL
    ) throws -> [UInt8] {
        let pki = try SNSTestPKI.shared.get()
        let id = "22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324"
        let timestamp = "2026-12-01T10:00:00.000Z"
        var fields = [("Type", "Notification"), ("MessageId", id), ("Message", s3Event), ("Timestamp", timestamp)]
        if let subject { fields.append(("Subject", subject)) }
        return try body(
            fields,
            stringToSign: notificationStringToSign(message: s3Event, id: id, subject: subject, timestamp: timestamp),
            keyPEM: keyPEM ?? pki.signingKeyPEM, version: version, certURL: certURL)
    }

    /// A verifier whose certificate fetch serves `pem` for every URL and counts the fetches.
    static func verifier(serving pem: [UInt8]? = nil) throws -> SNSVerifier {
        let served = try pem ?? SNSTestPKI.shared.get().certificatePEM
        let cache = CertificateCache(capacity: 4, lifetimeMs: 60_000) { _ in served }
        return SNSVerifier(topicARNs: [topic], certificates: cache)
    }

    @Test(arguments: ["1", "2"])
    func aValidNotificationVerifiesAndItsReplayToo(version: String) throws {
        let verifier = try Self.verifier()
        for subject in ["Amazon S3 Notification", nil] {
            let body = try Self.notification(version: version, subject: subject)
            let message = try verifier.verify(body: body, nowMs: 1_000)
            #expect(message.kind == .notification && message.subject == subject && message.topicARN == Self.topic)
            let batch = verifier.events(of: message, parser: S3EventParser(bucket: "photos"))
            #expect(batch.events.map(\.key) == ["u/1.jpg"] && batch.events.first?.source == .aws)
            // The same message again (SNS delivers again): it verifies again; the claims make it one record.
            #expect(try verifier.verify(body: body, nowMs: 2_000) == message)
        }
        // One certificate fetch for all of them: cached by URL.
        #expect(verifier.certificates.fetchCount == 1)
    }

    @Test func confirmationsAreVerifiedWithTheirOwnFields() throws {
        let pki = try SNSTestPKI.shared.get()
        let verifier = try Self.verifier()
        for type in ["SubscriptionConfirmation", "UnsubscribeConfirmation"] {
            let url =
                "https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=\(Self.topic)&Token=2336"
            let text = "You have chosen to subscribe to the topic \(Self.topic)."
            let fields = [
                ("Type", type), ("MessageId", "165545c9"), ("Token", "2336412f37"), ("Message", text),
                ("SubscribeURL", url), ("Timestamp", "2026-12-01T10:00:01.000Z"),
            ]
            let signed = Self.confirmationStringToSign(
                type: type, message: text, id: "165545c9", url: url, token: "2336412f37",
                timestamp: "2026-12-01T10:00:01.000Z")
            let message = try verifier.verify(
                body: try Self.body(fields, stringToSign: signed, keyPEM: pki.signingKeyPEM), nowMs: 1)
            #expect(message.kind.rawValue == type && message.subscribeURL == url && message.token == "2336412f37")
            #expect(verifier.policy.refusal(url: url) == nil)
            #expect(verifier.events(of: message, parser: S3EventParser()) == EventBatch(events: [], unusable: []))
            // Signed as a notification would be (without the Token and SubscribeURL): refused.
            let wrong = Self.notificationStringToSign(
                message: text, id: "165545c9", subject: nil, timestamp: "2026-12-01T10:00:01.000Z"
            )
            .replacingOccurrences(of: "Type\nNotification", with: "Type\n\(type)")
            #expect(throws: StoreEventsError.self) {
                try verifier.verify(
                    body: try Self.body(fields, stringToSign: wrong, keyPEM: pki.signingKeyPEM), nowMs: 1)
            }
        }
    }

    @Test func badSignaturesAreUnauthenticated() throws {
        let pki = try SNSTestPKI.shared.get()
        let verifier = try Self.verifier()
        // Signed by another key (whose certificate the URL does not serve).
        try Self.expectUnauthenticated(verifier, try Self.notification(keyPEM: pki.otherKeyPEM))
        // A field changed after signing.
        let valid = String(decoding: try Self.notification(), as: UTF8.self)
        try Self.expectUnauthenticated(
            verifier, Array(valid.replacingOccurrences(of: "u%2F1.jpg", with: "u%2F2.jpg").utf8))
        try Self.expectUnauthenticated(
            verifier, Array(valid.replacingOccurrences(of: "10:00:00.000Z", with: "10:00:01.000Z").utf8))
        // A SHA-1 signature announced as version 2, and an unknown version.
        let v1 = String(decoding: try Self.notification(version: "1"), as: UTF8.self)
        try Self.expectUnauthenticated(
            verifier,
            Array(v1.replacingOccurrences(of: #""SignatureVersion":"1""#, with: #""SignatureVersion":"2""#).utf8))
        try Self.expectUnauthenticated(
            verifier,
            Array(v1.replacingOccurrences(of: #""SignatureVersion":"1""#, with: #""SignatureVersion":"3""#).utf8))
        // Another topic's message, correctly signed.
        let otherTopic = SNSVerifier(
            topicARNs: ["arn:aws:sns:eu-west-1:123456789012:other"], certificates: verifier.certificates)
        try Self.expectUnauthenticated(otherTopic, try Self.notification())
    }

    @Test func certificateURLsOffTheAllowedHostsAreRefusedBeforeAnyFetch() throws {
        let verifier = try Self.verifier()
        for url in [
            "https://sns.eu-west-1.amazonaws.com.evil.example/cert.pem",
            "https://evil.example/sns.eu-west-1.amazonaws.com/x.pem",
            "http://sns.eu-west-1.amazonaws.com/cert.pem", "https://sns.eu-west-1.amazonaws.com:8443/cert.pem",
            "https://user@sns.eu-west-1.amazonaws.com/cert.pem", "https://sns.eu_west.amazonaws.com/cert.pem",
            "https://sns..amazonaws.com/cert.pem", "https://sns.a.b.amazonaws.com/cert.pem",
            "https://sns.eu-west-1.amazonaws.com/cert.txt", "https://sns.eu-west-1.amazonaws.com",
            "ftp://sns.eu-west-1.amazonaws.com/cert.pem",
        ] {
            try Self.expectUnauthenticated(verifier, try Self.notification(certURL: url))
        }
        #expect(verifier.certificates.fetchCount == 0)
        // Upper case hosts are the same host; a configured pattern allows another domain.
        #expect(SigningCertPolicy().refusal(certificateURL: "https://SNS.us-east-1.AmazonAWS.com/c.pem") == nil)
        let china = SigningCertPolicy(hostPatterns: ["sns.*.amazonaws.com.cn"])
        #expect(china.refusal(certificateURL: "https://sns.cn-north-1.amazonaws.com.cn/c.pem") == nil)
        #expect(china.refusal(certificateURL: Self.certURL) != nil)
    }

    @Test func aPortIsAllowedOnlyWhereAPatternNamesIt() {
        let local = SigningCertPolicy(hostPatterns: ["localhost:8443", "sns.*.amazonaws.com"])
        #expect(local.refusal(certificateURL: "https://localhost:8443/cert.pem") == nil)
        #expect(local.refusal(url: "https://LOCALHOST:8443/confirm?x=1") == nil)
        for url in [
            "https://localhost/cert.pem", "https://localhost:8444/cert.pem", "https://localhost:/cert.pem",
            "https://localhost:84a3/cert.pem", "https://sns.eu-west-1.amazonaws.com:8443/cert.pem",
            "https://evil.example:8443/cert.pem", "https://user@localhost:8443/cert.pem",
        ] {
            #expect(local.refusal(certificateURL: url) != nil, "\(url)")
        }
        #expect(local.refusal(certificateURL: "https://sns.eu-west-1.amazonaws.com/cert.pem") == nil)
    }

    @Test func certificatesThatCannotBeHadAreUnavailableNotAccepted() throws {
        struct Down: Error {}
        let failing = SNSVerifier(
            topicARNs: [Self.topic], certificates: CertificateCache { _ in throw Down() })
        #expect(throws: StoreEventsError.self) { try failing.verify(body: try Self.notification(), nowMs: 1) }
        let body = try Self.notification()
        do throws(StoreEventsError) {
            _ = try failing.verify(body: body, nowMs: 1)
        } catch {
            guard case .certificateUnavailable = error else {
                Issue.record("a failed fetch gave \(error)")
                return
            }
        }
        // A document that is not a certificate (the CA's is, but signed nothing: a bad signature).
        let pki = try SNSTestPKI.shared.get()
        let notACertificate = try Self.verifier(
            serving: Array("-----BEGIN PUBLIC KEY-----\nAA==\n-----END PUBLIC KEY-----\n".utf8))
        #expect(throws: StoreEventsError.self) { try notACertificate.verify(body: try Self.notification(), nowMs: 1) }
        try Self.expectUnauthenticated(try Self.verifier(serving: pki.otherCertificatePEM), try Self.notification())
    }

    @Test func theCacheRefetchesAfterItsLifetimeAndStaysBounded() throws {
        let pki = try SNSTestPKI.shared.get()
        let fetched = Mutex<[String]>([])
        let cache = CertificateCache(capacity: 2, lifetimeMs: 1_000) { url in
            fetched.withLock { $0.append(url) }
            return pki.certificatePEM
        }
        _ = try cache.key(for: "a", nowMs: 0)
        _ = try cache.key(for: "a", nowMs: 999)
        _ = try cache.key(for: "a", nowMs: 1_000)
        _ = try cache.key(for: "b", nowMs: 1_001)
        _ = try cache.key(for: "c", nowMs: 1_002)
        _ = try cache.key(for: "b", nowMs: 1_003)
        _ = try cache.key(for: "a", nowMs: 1_004)
        #expect(fetched.withLock { $0 } == ["a", "a", "b", "c", "a"])
    }

    @Test func malformedAndOversizedBodies() throws {
        let verifier = try Self.verifier()
        for body in ["", "{", "[]", #"{"Type":"Notification"}"#, #"{"Type":"Other","MessageId":"1"}"#] {
            #expect(throws: StoreEventsError.self) { try verifier.verify(body: Array(body.utf8), nowMs: 1) }
        }
        let small = SNSVerifier(topicARNs: nil, certificates: verifier.certificates, maxBytes: 10)
        #expect(throws: StoreEventsError.tooLarge(bytes: 11, limit: 10)) {
            try small.verify(body: Array("{         }".utf8), nowMs: 1)
        }
    }

    /// Expects `.unauthenticated` for `body`.
    static func expectUnauthenticated(
        _ verifier: SNSVerifier, _ body: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    )
        throws
    {
        do throws(StoreEventsError) {
            _ = try verifier.verify(body: body, nowMs: 5_000)
            Issue.record("verified", sourceLocation: sourceLocation)
        } catch {
            guard case .unauthenticated = error else {
                Issue.record("\(error)", sourceLocation: sourceLocation)
                return
            }
        }
    }
}
