import Crypto
import JSON

/// Authenticates the deliveries of stores that share a secret with the server: Ceph RGW's push (the
/// topic's `OpaqueData`, copied into every record as `opaqueData`) and MinIO's webhook (its `auth_token`,
/// sent as `Authorization: Bearer <token>`, or as it is when the token is already `<scheme> <token>`).
/// Comparisons take constant time. Pure.
public struct PushAuthenticator: Sendable {
    /// The shared secret.
    private let secret: Secret
    /// The parser of the bodies.
    public var parser: S3EventParser

    /// An authenticator for `secret` (not empty), reading bodies with `parser`.
    public init(secret: Secret, parser: S3EventParser = S3EventParser()) {
        precondition(!secret.isEmpty, "a push secret is not empty")
        self.secret = secret
        self.parser = parser
    }

    /// The events of an RGW push: every record must carry the secret as its `opaqueData` (a delivery
    /// with none, or one record without it, is `.unauthenticated`: RGW copies it into each).
    public func rgwPush(body: [UInt8]) throws(StoreEventsError) -> EventBatch {
        let root = try parser.json(body)
        guard let records = root["Records"]?.arrayValue, !records.isEmpty else {
            throw .unauthenticated("an RGW push without records carries no opaqueData")
        }
        for record in records {
            guard let opaque = record["opaqueData"]?.stringValue, ConstantTime.equals(opaque, secret.unredacted)
            else { throw .unauthenticated("a record's opaqueData is missing or wrong") }
        }
        return try parser.parse(root)
    }

    /// The events of a MinIO webhook delivery whose `Authorization` header is `authorization`.
    public func minioWebhook(authorization: String?, body: [UInt8]) throws(StoreEventsError) -> EventBatch {
        guard let authorization, isMinIOToken(authorization) else {
            throw .unauthenticated("the Authorization header is missing or wrong")
        }
        return try parser.parse(body)
    }

    /// True when `header` is what MinIO sends for the secret: `Bearer <secret>`, or the secret itself when
    /// it is two words already.
    func isMinIOToken(_ header: String) -> Bool {
        let token = secret.unredacted
        let words = token.split(whereSeparator: { $0 == " " || $0 == "\t" })
        let expected = words.count == 2 ? token : "Bearer " + token
        return ConstantTime.equals(header, expected)
    }
}
