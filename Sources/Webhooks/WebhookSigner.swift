import Crypto

/// Signs webhook requests as the Standard Webhooks specification says: `webhook-id`, `webhook-timestamp`
/// (Unix seconds of the attempt) and `webhook-signature`, `v1,` and the base64 of HMAC-SHA256(key,
/// `<id>.<timestamp>.<body>`); during a rotation, a second signature with the previous secret, separated
/// by a space (a receiver accepts a request when any signature matches). Pure.
public struct WebhookSigner: Sendable {
    /// The secret in use.
    let current: WebhookSecret
    /// The secret being rotated out (`webhooks.previousSecret`), signed with too while set.
    let previous: WebhookSecret?

    /// A signer with `current`, and `previous` during a rotation.
    public init(current: WebhookSecret, previous: WebhookSecret? = nil) {
        self.current = current
        self.previous = previous
    }

    /// The `webhook-signature` value of `body` sent as message `id` at `timestamp` (Unix seconds).
    public func signature(id: String, timestamp: Int64, body: [UInt8]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed.append(contentsOf: body)
        let secrets = [current] + (previous.map { [$0] } ?? [])
        return secrets.map { "v1," + Base64.encode($0.key.authenticate(signed).bytes) }.joined(separator: " ")
    }

    /// The three header fields of one attempt.
    public func headers(id: String, timestamp: Int64, body: [UInt8]) -> [(name: String, value: String)] {
        [
            ("webhook-id", id), ("webhook-timestamp", String(timestamp)),
            ("webhook-signature", signature(id: id, timestamp: timestamp, body: body)),
        ]
    }
}
