/// The outbox of outbound webhook events (schema version 12): every change the lifecycle reports writes
/// its events in its own transaction (`ClaimStore.recordClaimed`, `RecordStore.fillSlot`,
/// `RecordStore.deleteRecord`, `ClaimStore.expireClaim` take them), one delivery row per endpoint; a
/// deliverer takes the due ones of its endpoint, sends them and settles each attempt through its lease's
/// fence (`FencedWrites.settleWebhookDelivery`). docs/webhooks.md has the protocol.
public protocol WebhookOutbox: Sendable {
    /// Writes `events` in one durable transaction of their own (a change with no transaction of the
    /// store's: a refused upload), one delivery per endpoint; a delivery of an event id the endpoint has
    /// already is left as it is.
    func appendOutboxEvents(_ events: [OutboxEvent]) throws(RecordsError)

    /// Up to `limit` pending deliveries to `endpoint` due at `nowMs`, longest due first (then in the order
    /// they were written), each the first pending one of its subject for the endpoint (a later event of a
    /// subject waits until the earlier is delivered or failed for good).
    func dueWebhookDeliveries(endpoint: String, nowMs: Int64, limit: Int) throws(RecordsError) -> [WebhookDelivery]

    /// Settles one attempt at delivery `seq` unfenced (one process, tests; the deliverer settles through
    /// its lease's fence, `FencedWrites.settleWebhookDelivery`): false when it is not pending any more.
    func settleWebhookDelivery(seq: Int64, attempt: WebhookAttempt, nowMs: Int64) throws(RecordsError) -> Bool

    /// Up to `limit` deliveries in `state`, oldest first, after `afterSeq` (the operator's list).
    func webhookDeliveries(state: WebhookDelivery.State, limit: Int, afterSeq: Int64?) throws(RecordsError)
        -> [WebhookDelivery]

    /// The deliveries of event `eventId` (one per endpoint), or none.
    func webhookDeliveries(eventId: String) throws(RecordsError) -> [WebhookDelivery]

    /// Makes every delivery of `eventId` pending and due at `nowMs` again with its attempts reset (the
    /// operator's redelivery); how many.
    func redeliverWebhookEvent(eventId: String, nowMs: Int64) throws(RecordsError) -> Int

    /// The outbox's counts and its oldest pending event.
    func webhookOutboxStats() throws(RecordsError) -> WebhookOutboxStats

    /// Removes up to `limit` delivered or failed deliveries finished before `beforeMs`; how many.
    func pruneWebhookDeliveries(finishedBeforeMs beforeMs: Int64, limit: Int) throws(RecordsError) -> Int
}
