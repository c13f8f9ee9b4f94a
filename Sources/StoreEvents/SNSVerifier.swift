import Crypto
import JSON

/// Verifies Amazon SNS HTTP(S) deliveries: the message's fields, its topic, its signing certificate's URL
/// (the policy), and its signature (SignatureVersion 1: SHA1withRSA, 2: SHA256withRSA) with the key of
/// that certificate (the cache). Replays of a valid message verify again: duplicates collapse to one
/// record later, through the claims. Pure but for the injected certificate fetch.
public struct SNSVerifier: Sendable {
    /// Which certificate URLs are allowed.
    public var policy: SigningCertPolicy
    /// The topics whose messages are accepted; nil accepts any topic (the App sets its own).
    public var topicARNs: Set<String>?
    /// The certificates.
    public let certificates: CertificateCache
    /// The largest body read.
    public var maxBytes: Int

    /// A verifier with `policy`, for messages of `topicARNs`, using `certificates`.
    public init(
        policy: SigningCertPolicy = SigningCertPolicy(), topicARNs: Set<String>?, certificates: CertificateCache,
        maxBytes: Int = 256 * 1024
    ) {
        self.policy = policy
        self.topicARNs = topicARNs
        self.certificates = certificates
        self.maxBytes = maxBytes
    }

    /// The verified message of `body`: `.tooLarge`, `.malformed` (not an SNS message), `.unauthenticated`
    /// (an unknown topic or signature version, a certificate URL the policy refuses, a bad signature) or
    /// `.certificateUnavailable`.
    public func verify(body: [UInt8], nowMs: Int64) throws(StoreEventsError) -> SNSMessage {
        guard body.count <= maxBytes else { throw .tooLarge(bytes: body.count, limit: maxBytes) }
        let root: JSONValue
        do throws(JSONError) {
            root = try JSONParser(limits: .init(maxDepth: 8, maxBytes: maxBytes)).parse(body)
        } catch {
            throw .malformed("the body is not JSON (\(error.message))")
        }
        let message = try SNSMessage(json: root)
        let algorithm: SignatureAlgorithm
        switch message.signatureVersion {
        case "1": algorithm = .rsaPKCS1v15SHA1
        case "2": algorithm = .rsaPKCS1v15SHA256
        default: throw .unauthenticated("SignatureVersion \(message.signatureVersion.prefix(8)) is not 1 or 2")
        }
        if let topicARNs, !topicARNs.contains(message.topicARN) {
            throw .unauthenticated("the topic \(message.topicARN.prefix(256)) is not one this server takes")
        }
        if let refusal = policy.refusal(certificateURL: message.signingCertURL) { throw .unauthenticated(refusal) }
        guard let signature = Base64.decode(message.signature), !signature.isEmpty else {
            throw .unauthenticated("the Signature is not base64")
        }
        let key = try certificates.key(for: message.signingCertURL, nowMs: nowMs)
        guard key.isValidSignature(signature, for: Array(message.stringToSign.utf8), algorithm: algorithm) else {
            throw .unauthenticated("the signature does not verify")
        }
        return message
    }

    /// The S3 events in a verified Notification's `Message`; a `Message` that is not an S3 event is one
    /// unusable record (`malformed-record`): the delivery is authenticated, so it is answered 2xx and counted.
    public func events(of message: SNSMessage, parser: S3EventParser) -> EventBatch {
        guard message.kind == .notification else { return EventBatch(events: [], unusable: []) }
        do throws(StoreEventsError) {
            return try parser.parse(Array(message.message.utf8))
        } catch {
            return EventBatch(events: [], unusable: [.init(index: 0, reason: "malformed-record")])
        }
    }
}
