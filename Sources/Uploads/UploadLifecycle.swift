import Clamd
import Config
import JSON
import Records

/// The whole upload lifecycle, assembled once from the configuration: the types, the intents, who holds
/// a key, issuing, confirming, the records, multipart uploads (when the Uppy routes are on), the
/// janitor, and the store's events with the reconciler (when `events.enabled`). The front doors take the
/// parts they call.
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
    /// The native multipart API's uploads; nil unless `multipart.enabled`.
    public let native: NativeUploads?
    /// The janitor (started and stopped by the application), with the multipart janitor when
    /// multipart uploads are on and the reconciler when store events are.
    public let janitor: Janitor
    /// The processor of the store's events (started and stopped by the application); nil unless
    /// `events.enabled`.
    public let eventProcessor: EventProcessor?
    /// The malware scanner (started and stopped by the application); nil unless some type scans
    /// (`types.<T>.scan`) and storage is checked (`s3.verifyUploads`).
    public let scanner: ScanRunner?

    /// The lifecycle of `config` over `store`, its group `committer` (made over the store's claims) and
    /// intent `writer`, and `storage` (`completeStorage`: the same with the longer timeout of completions,
    /// for multipart uploads). Issued intents go to `intentSink` when given (tests), else to the writer.
    public init(
        config: PresigndConfig, store: any LifecycleStore, committer: GroupCommitter, writer: IntentWriter,
        storage: any ObjectStorage & MultipartStorage & ObjectListing, completeStorage: (any MultipartStorage)? = nil,
        signers: Issuer.Signers, env: UploadEnvironment, events: @escaping LifecycleLog,
        intentSink: (any IntentSink)? = nil, recordMembers: @escaping WebhookEvents.RecordMembers = { _, _ in }
    ) throws(UploadError) {
        // The outbound webhook events of every change below, for the configured endpoints (none: none).
        let webhooks = WebhookEvents(
            endpoints: config.webhooks.allEndpoints, recordMembers: recordMembers, env: env)
        catalog = try UploadCatalog(config.types)
        intents = IntentKeeper(
            writer: writer, sink: intentSink,
            quota: config.limits.enabled
                ? DailyQuota(
                    uploadsPerDay: config.limits.uploadsPerUserPerDay, bytesPerDay: config.limits.bytesPerUserPerDay)
                : nil)
        ownership = ImageKeyOwnership(store: store, intents: intents, nowMillis: env.nowMillis)
        issuer = Issuer(
            catalog: catalog, signers: signers, bucket: config.s3.bucket, intents: intents, ownership: ownership,
            env: env, signIfNoneMatch: config.presign.signIfNoneMatch, storeChecksums: config.s3.storeChecksums)
        // `s3.verifyUploads = false` (measuring the store) confirms and removes without storage calls.
        let checked: (any ObjectStorage)? = config.s3.verifyUploads ? storage : nil
        let leaseMs = Int64(config.records.claimLeaseSeconds) * 1000
        confirmer = Confirmer(
            catalog: catalog, ownership: ownership, intents: intents, storage: checked, committer: committer,
            store: store, env: env, events: events, webhooks: webhooks, storeChecksums: config.s3.storeChecksums)
        records = UploadRecords(
            store: store, storage: checked, readSigner: signers.configured, bucket: config.s3.bucket,
            readUrlExpires: config.presign.readUrlExpiresSeconds, cdnBaseUrl: config.presign.cdnBaseUrl, env: env,
            readUrlWindow: config.presign.readUrlWindowSeconds, webhooks: webhooks)
        janitor = Janitor(
            store: store, storage: storage, deleteObjects: config.records.deleteUnconfirmedObjects,
            batchSize: config.records.janitorBatchSize, intervalMs: config.records.janitorIntervalMs, env: env,
            events: events, claimLeaseMs: leaseMs,
            claimRetentionMs: Int64(config.records.claimRetentionSeconds) * 1000,
            graceMs: Int64(config.records.janitorGraceMs), leaseTtlMs: Int64(config.records.leaseTtlMs),
            webhooks: webhooks)
        if config.uppy.enabled || config.multipart.enabled {
            let multipart = MultipartUploads(
                issuer: issuer, storage: storage, completeStorage: completeStorage ?? storage, ledger: store,
                intents: intents, ownership: ownership, confirmer: confirmer, env: env,
                partExpires: config.uppy.urlExpiresSeconds,
                uploadLifetimeMs: Int64(config.uppy.abortAfterSeconds) * 1000
            )
            self.multipart = multipart
            if config.multipart.enabled {
                let m = config.multipart
                let native = NativeUploads(
                    multipart: multipart, ledger: store, urlSeconds: m.backgroundUrlSeconds, maxParts: m.maxParts,
                    autoCompleteAfterSeconds: m.autoCompleteAfterSeconds, checkEverySeconds: m.checkEverySeconds)
                self.native = native
                janitor.nativeUploads = native
            } else {
                native = nil
            }
            janitor.multipart = MultipartJanitor(
                storage: storage, store: store, abortAfterSeconds: config.uppy.abortAfterSeconds,
                maxAborts: config.uppy.janitorMaxAborts, claimLeaseMs: leaseMs, env: env, events: events,
                webhooks: webhooks)
        } else {
            multipart = nil
            native = nil
        }
        let e = config.events
        if e.enabled {
            eventProcessor = EventProcessor(
                store: store, confirmer: confirmer, bucket: config.s3.bucket, intervalMs: e.processIntervalMs,
                recordDelayMs: e.recordDelayMs, env: env, events: events)
            if e.reconcileIntervalMs > 0 {
                janitor.reconciler = Reconciler(
                    storage: storage, store: store, confirmer: confirmer, prefixes: UploadPrefixes.of(config.types),
                    intervalMs: e.reconcileIntervalMs, minAgeMs: Int64(e.reconcileMinAgeSeconds) * 1000,
                    maxPages: e.reconcileMaxPages, deleteOrphans: config.records.deleteUnconfirmedObjects, env: env,
                    events: events)
            }
        } else {
            eventProcessor = nil
        }
        if let checked, config.types.contains(where: { $0.scan == .clamav }) {
            guard let address = ClamdAddress(parsing: config.scan.clamdAddress) else {
                throw .configuration("scan.clamdAddress")
            }
            let worker = ScanWorker(
                store: store, storage: checked,
                clamd: ClamdClient(
                    address: address, timeoutMs: config.scan.timeoutMs, chunkBytes: config.scan.chunkBytes),
                settings: ScanSettings(config.scan), webhooks: webhooks, env: env, events: events)
            scanner = ScanRunner(
                worker: worker, store: store, intervalMs: config.scan.pollIntervalMs,
                leaseTtlMs: Int64(config.records.leaseTtlMs), env: env)
        } else {
            scanner = nil
        }
    }
}
