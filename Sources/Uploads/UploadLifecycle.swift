import Config
import Records

/// The whole upload lifecycle, assembled once from the configuration: the types, the intents, who holds
/// a key, issuing, confirming, the records, multipart uploads (when the Uppy routes are on) and the
/// janitor. The front doors take the parts they call.
public final class UploadLifecycle: Sendable {
    /// The types and their rules.
    public let catalog: UploadCatalog
    /// The intents of issued URLs (the hand-off every issuing route passes).
    public let intents: IntentKeeper
    /// Who holds an image key.
    public let ownership: ImageKeyOwnership
    /// Issuing URLs.
    public let issuer: Issuer
    /// Confirming uploads.
    public let confirmer: Confirmer
    /// The owners' records.
    public let records: UploadRecords
    /// Multipart uploads; nil unless `uppy.enabled`.
    public let multipart: MultipartUploads?
    /// The janitor (started and stopped by the application), with the multipart janitor when
    /// multipart uploads are on.
    public let janitor: Janitor

    /// The lifecycle of `config` over `store`, its group `committer` and intent `writer`, and `storage`
    /// (`completeStorage`: the same with the longer timeout of completions, for multipart uploads).
    /// Issued intents go to `intentSink` when given (tests), else to the writer.
    public init(
        config: PresigndConfig, store: any RecordStore, committer: GroupCommitter, writer: IntentWriter,
        storage: any ObjectStorage & MultipartStorage, completeStorage: (any MultipartStorage)? = nil,
        signers: Issuer.Signers, env: UploadEnvironment, events: @escaping LifecycleLog,
        intentSink: (any IntentSink)? = nil
    ) throws(UploadError) {
        catalog = try UploadCatalog(config.types)
        intents = IntentKeeper(writer: writer, sink: intentSink)
        ownership = ImageKeyOwnership(store: store, intents: intents, nowMillis: env.nowMillis)
        issuer = Issuer(
            catalog: catalog, signers: signers, bucket: config.s3.bucket, intents: intents, ownership: ownership,
            env: env, signIfNoneMatch: config.presign.signIfNoneMatch)
        // `s3.verifyUploads = false` (measuring the store) confirms and removes without storage calls.
        let checked: (any ObjectStorage)? = config.s3.verifyUploads ? storage : nil
        confirmer = Confirmer(
            catalog: catalog, ownership: ownership, intents: intents, storage: checked, committer: committer,
            store: store, env: env, events: events)
        records = UploadRecords(
            store: store, storage: checked, readSigner: signers.configured, bucket: config.s3.bucket,
            readUrlExpires: config.presign.readUrlExpiresSeconds, cdnBaseUrl: config.presign.cdnBaseUrl, env: env)
        janitor = Janitor(
            store: store, storage: storage, deleteObjects: config.records.deleteUnconfirmedObjects,
            batchSize: config.records.janitorBatchSize, intervalMs: config.records.janitorIntervalMs, env: env,
            events: events)
        if config.uppy.enabled {
            multipart = MultipartUploads(
                issuer: issuer, storage: storage, completeStorage: completeStorage ?? storage, intents: intents,
                ownership: ownership, confirmer: confirmer, env: env, partExpires: config.uppy.urlExpiresSeconds,
                uploadLifetimeMs: Int64(config.uppy.abortAfterSeconds) * 1000)
            janitor.multipart = MultipartJanitor(
                storage: storage, prefixes: MultipartJanitor.prefixes(of: config.types),
                abortAfterSeconds: config.uppy.abortAfterSeconds, maxAborts: config.uppy.janitorMaxAborts,
                nowMillis: env.nowMillis, events: events)
        } else {
            multipart = nil
        }
    }
}
