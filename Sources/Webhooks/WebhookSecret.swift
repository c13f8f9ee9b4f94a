import Crypto

/// A webhook signing secret in the Standard Webhooks form, `whsec_` then the base64 of the key bytes, with
/// its HMAC-SHA256 key prepared once. Prints as `<redacted>`.
public struct WebhookSecret: Sendable, CustomStringConvertible {
    /// The prefix of the text form.
    public static let prefix = "whsec_"
    /// The fewest key bytes taken (Standard Webhooks asks for 24 to 64; shorter keys are refused).
    public static let minimumBytes = 16
    /// The most key bytes taken.
    public static let maximumBytes = 1024

    /// The key, prepared.
    let key: HMACKey

    /// The secret of `text` (`whsec_<base64>`, padded or not); `.invalidSecret` otherwise.
    public init(parsing text: String) throws(WebhookError) {
        guard text.hasPrefix(Self.prefix) else { throw .invalidSecret("it must start with \(Self.prefix)") }
        var encoded = String(text.dropFirst(Self.prefix.count))
        while encoded.utf8.count % 4 != 0 { encoded += "=" }
        guard let bytes = Base64.decode(encoded) else {
            throw .invalidSecret("what follows \(Self.prefix) must be base64")
        }
        guard (Self.minimumBytes...Self.maximumBytes).contains(bytes.count) else {
            throw .invalidSecret(
                "it must hold \(Self.minimumBytes) to \(Self.maximumBytes) bytes (it holds \(bytes.count))")
        }
        key = HMACKey(key: bytes)
    }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
}
