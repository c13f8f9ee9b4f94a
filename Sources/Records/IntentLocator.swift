/// Intents found by the object key their URL writes (schema version 9): what a store event names. The
/// image key differs from the object key for a multipart upload (`key#uploadId`) and for a client-chosen
/// key rendered through a template (`uploads/{imageKey}.jpg`); for every other intent they are equal.
public protocol IntentLocator: Sendable {
    /// The intent whose `objectKey` is `objectKey`: the intent of the image key `objectKey` when it writes
    /// that object, else the newest intent (by `createdAtMs`) of another image key that does; nil when none.
    func intent(objectKey: String) throws(RecordsError) -> UploadIntent?
}

/// Everything the upload lifecycle asks of its store: records and intents, fenced claims, the event
/// inbox, the multipart ledger, the object-key lookup, the daily quotas, the leases of background work and
/// the records by digest, the webhook outbox and the scan queue. The three stores implement all of it.
public typealias LifecycleStore = RecordStore & ClaimStore & EventInbox & MultipartLedger & IntentLocator & QuotaStore
    & LeaseStore & RecordDigests & WebhookOutbox & ScanQueue
