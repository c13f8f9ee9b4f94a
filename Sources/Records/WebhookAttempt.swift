/// How one attempt at a delivery ended, as the deliverer settles it (`FencedWrites.settleWebhookDelivery`).
public enum WebhookAttempt: Sendable, Equatable {
    /// The endpoint answered 2xx: the delivery is `delivered`.
    case delivered
    /// It failed (`error`): due again at `dueAtMs`.
    case retry(dueAtMs: Int64, error: String)
    /// It failed and was the last attempt: the delivery is `failed`.
    case failed(error: String)
}
