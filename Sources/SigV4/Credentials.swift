import Crypto

/// An access key pair, with a session token when the credentials are temporary (STS, IMDS, ECS).
public struct Credentials: Sendable {
    /// The access key ID, e.g. `AKIAIOSFODNN7EXAMPLE`; not a secret, it appears in every URL.
    public var accessKeyId: String
    /// The secret access key; only the signing-key derivation reads it.
    public var secretAccessKey: Secret
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`.
    public var sessionToken: Secret?
    /// When temporary credentials stop working, in epoch seconds; nil for long-term keys.
    public var expiration: Int64?

    /// Credentials from their parts; `expiration` (epoch seconds) is nil for keys that do not expire.
    public init(accessKeyId: String, secretAccessKey: Secret, sessionToken: Secret? = nil, expiration: Int64? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.expiration = expiration
    }

    /// True once `now` (epoch seconds) has reached the expiration; never for long-term keys.
    public func isExpired(at now: Int64) -> Bool {
        guard let expiration else { return false }
        return now >= expiration
    }

    /// The lifetime to give a URL signed at `now`: `min(requested, expiration - now)`, so that the URL
    /// never outlives the credentials that signed it (S3 refuses it once they expire); nil when they
    /// have expired. Long-term keys give `requested` unchanged.
    public func lifetime(clamping requested: Int, now: Int64) -> Int? {
        Self.lifetime(clamping: requested, expiration: expiration, now: now)
    }

    /// `min(requested, expiration - now)`, or nil when that is not positive; `requested` when
    /// `expiration` is nil.
    public static func lifetime(clamping requested: Int, expiration: Int64?, now: Int64) -> Int? {
        guard let expiration else { return requested }
        let left = expiration - now
        guard left > 0 else { return nil }
        return left < Int64(requested) ? Int(left) : requested
    }
}
