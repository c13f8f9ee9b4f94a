import Crypto
import SigV4
import System

/// Turns the fields of a credentials answer into `Credentials`, checking each the way the signer
/// will use it. Pure. Reasons name the field, never its value.
struct CredentialFields: Sendable {
    /// `AccessKeyId`.
    var accessKeyId: String?
    /// `SecretAccessKey`.
    var secretAccessKey: String?
    /// `SessionToken` (STS) or `Token` (container, IMDS).
    var sessionToken: String?
    /// `Expiration`, RFC 3339.
    var expiration: String?

    /// Checked credentials: every field present, an access key id of 1 to 128 visible ASCII
    /// characters without `/`, a secret and token of visible ASCII, an expiration after `now`.
    /// Without `requiringSessionToken`, an absent (or empty) token gives credentials without one.
    func credentials(provider: String, now: Int64, requiringSessionToken: Bool = true) throws(CredentialsError)
        -> Credentials
    {
        guard let accessKeyId, !accessKeyId.isEmpty else { throw missing("AccessKeyId", provider) }
        guard accessKeyId.utf8.count <= 128,
            accessKeyId.utf8.allSatisfy({ Self.isVisibleASCII($0) && $0 != UInt8(ascii: "/") })
        else { throw .malformedResponse(provider: provider, reason: "AccessKeyId is not 1 to 128 visible characters") }
        guard let secretAccessKey, !secretAccessKey.isEmpty else { throw missing("SecretAccessKey", provider) }
        guard secretAccessKey.utf8.allSatisfy(Self.isVisibleASCII) else {
            throw .malformedResponse(provider: provider, reason: "SecretAccessKey is not visible ASCII")
        }
        let token = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        if token == nil && requiringSessionToken { throw missing("the session token", provider) }
        guard token?.utf8.allSatisfy(Self.isVisibleASCII) ?? true else {
            throw .malformedResponse(provider: provider, reason: "the session token is not visible ASCII")
        }
        guard let expiration else { throw missing("Expiration", provider) }
        guard let expiresAt = ISO8601Timestamp.epochSeconds(expiration) else {
            throw .malformedResponse(provider: provider, reason: "Expiration is not an RFC 3339 time")
        }
        guard expiresAt > now else { throw .expired(provider: provider, expiration: expiresAt, now: now) }
        return Credentials(
            accessKeyId: accessKeyId, secretAccessKey: Secret(secretAccessKey), sessionToken: token.map(Secret.init),
            expiration: expiresAt)
    }

    /// The error for an absent field.
    private func missing(_ field: String, _ provider: String) -> CredentialsError {
        .malformedResponse(provider: provider, reason: "\(field) is missing")
    }

    /// `!` to `~`.
    static func isVisibleASCII(_ byte: UInt8) -> Bool { byte >= 0x21 && byte <= 0x7e }

    /// A service's error message made safe for a log: printable ASCII (others become `?`), at most
    /// 200 characters, and `<redacted>` in place of `secret` should the service echo it.
    static func sanitizedMessage(_ message: String?, hiding secret: String? = nil) -> String? {
        guard var message, !message.isEmpty else { return nil }
        if let secret, secret.utf8.count >= 8, message.contains(secret) {
            message = message.replacingAll(secret, with: "<redacted>")
        }
        var bytes = message.utf8.prefix(200).map { $0 >= 0x20 && $0 <= 0x7e ? $0 : UInt8(ascii: "?") }
        if message.utf8.count > 200 { bytes.append(contentsOf: "...".utf8) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    /// `self` with every occurrence of `target` replaced (no Foundation).
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        var output = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            output += rest[..<range.lowerBound]
            output += replacement
            rest = rest[range.upperBound...]
        }
        return output + rest
    }
}
