/// What the deliverer reports as it goes, for the operator's log (App writes each as one line).
public enum WebhookDeliveryEvent: Sendable, Equatable {
    /// This process took the lease of `endpoint`'s deliveries (`tookOver`: from a holder whose lease ran out).
    case leaseAcquired(endpoint: String, holder: String, token: Int64, tookOver: Bool)
    /// This process lost the lease of `endpoint`'s deliveries: its pass stopped.
    case leaseLost(endpoint: String, holder: String, token: Int64)
    /// A store call failed (retried at the next pass or renewal).
    case storeFailed(endpoint: String, error: String)
    /// A delivery failed for good after `attempts` attempts (`webhooks.maxAttempts`).
    case failedForGood(endpoint: String, eventId: String, type: String, attempts: Int, error: String)
    /// Settled attempts were not written because the lease was lost meanwhile (the next holder sends them
    /// again, under the same ids).
    case settlementsFencedOff(endpoint: String, count: Int)
    /// `endpoint` answered no attempt of a round (`rounds` such rounds in a row): nothing is sent to it
    /// until `untilMs`, when the next round probes it.
    case endpointHeld(endpoint: String, untilMs: Int64, rounds: Int)
}
