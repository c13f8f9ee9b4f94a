import Crypto

/// An access key pair, with a session token when the credentials are temporary (STS, IMDS, ECS).
public struct Credentials: Sendable {
    /// The access key ID, e.g. `AKIAIOSFODNN7EXAMPLE`; not a secret, it appears in every URL.
    public var accessKeyId: String
    /// The secret access key; only the signing-key derivation reads it.
    public var secretAccessKey: Secret
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`.
    public var sessionToken: Secret?

    /// Credentials from their parts.
    public init(accessKeyId: String, secretAccessKey: Secret, sessionToken: Secret? = nil) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
