import CloudCredentials
import Config
import HTTPServer
import Logging
import ObjectStore
import Records
import Uploads
import WebhookDelivery

/// The application without its listeners: configuration in, the routers out, with everything behind
/// them (credentials and signers, storage, the records store, the intent writer and group committer,
/// the upload lifecycle and its janitors, the gate, the front doors and their presenters, the metrics).
/// Nothing here opens a socket: `Application` adds the servers to serve it, and the in-process test
/// client (Tests/AppTestSupport) drives `router` with requests in memory.
public final class AppCore: Sendable {
    /// The main listener's routes: the API, the operator's routes, and `/metrics` unless
    /// `server.metricsPort` moves it to `opsRouter`.
    public let router: Router
    /// The operations listener's routes (`/metrics`, `/healthz`, `/readyz`) when `server.metricsPort` is set.
    public let opsRouter: Router?
    /// The main listener's options (limits, worker pool, the API's error body), whoever carries its requests.
    public let serverOptions: ServerOptions
    /// The request counters and every gauge of the application (rendered by `/metrics`); the main
    /// server records into it, one shard per event loop.
    public let metrics: ServerMetrics
    /// The records store.
    public let store: any LifecycleStore
    private let intentWriter: IntentWriter
    private let committer: GroupCommitter
    /// The upload lifecycle every front door calls.
    let uploads: UploadLifecycle
    /// The signers of the current credentials (`signers.configured.current` is the `Presigner` in use).
    let signers: Application.Signers
    /// The credentials and their refresher.
    let credentials: AppCredentials
    /// `/healthz`, `/readyz`, `/metrics`.
    private let ops: OpsService
    /// The way into every route (its limits' synchronisation starts and stops with the application).
    private let gate: Gate
    /// The deliverer of the webhook outbox, when an endpoint is configured.
    let webhooks: WebhookDeliverer?

    /// Builds every part from `config` (the wiring's named steps, `Application`'s static members);
    /// no thread of the janitors or refreshers runs until `start()`.
    public init(config: PresigndConfig, env: AppEnvironment, log: LogSink = LogSink()) throws(AppError) {
        let (provider, provided) = try Application.resolveCredentials(config, env: env, log: log)
        try ClientPContract.check(config, credentials: provided.credentials, provider: provided.provider, log: log)
        let signers = try Application.makeSigners(config.s3, credentials: provided.credentials)
        self.signers = signers
        credentials = Application.makeCredentials(
            config, provider: provider, initial: provided, signers: signers, env: env, log: log)
        let storage = Application.makeStorage(config.s3, signers: signers, env: env)
        let bucketStatus = BucketStatus()
        try Application.checkBucketAtStart(config.s3, storage: storage, status: bucketStatus, log: log)
        let store = try Application.openStore(config.records)
        self.store = store
        intentWriter = Application.makeIntentWriter(config.records, store: store, log: log)
        committer = GroupCommitter(store: store, maxBatch: config.records.groupCommitMaxBatch)
        do throws(UploadError) {
            uploads = try UploadLifecycle(
                config: config, store: store, committer: committer, writer: intentWriter, storage: storage,
                completeStorage: config.uppy.enabled
                    ? Application.makeCompleteStorage(config, signers: signers, env: env) : nil,
                signers: Issuer.Signers(pathStyle: signers.pathStyle, configured: signers.configured),
                env: env.uploads, events: { [log] event in event.write(to: log) },
                recordMembers: RecordJSON.writeMembers)
        } catch {
            if case .configuration(let key) = error { throw .configuration(key) }
            throw .startup("uploads", "\(error)")
        }

        // The front doors: native, compatibility, Uppy (each with its own error presenter), and the
        // operator's routes.
        let gate = try Application.makeGate(
            config: config, env: env, log: log, shared: store is PostgresRecordStore ? store as? RateBucketStore : nil)
        self.gate = gate
        let presign = PresignService(config: config, issuer: uploads.issuer, gate: gate)
        let images = ImagesService(
            config: config, confirmer: uploads.confirmer, records: uploads.records, catalog: uploads.catalog, gate: gate
        )
        let compat = CompatService(
            config: config, uploads: uploads, gate: gate,
            clientPIssue: { request, caller throws(APIError) in try presign.issueForQuery(request, caller: caller) })
        // One shard per event loop the main server will run (`server.eventLoops`, or the CPUs it may use).
        let metrics = ServerMetrics(shards: CPUCount.detect(configured: config.server.eventLoops).count)
        self.metrics = metrics
        ops = Application.makeOpsService(
            config.s3, store: store, storage: storage, credentials: credentials, bucketStatus: bucketStatus,
            metrics: metrics, env: env, log: log, scanner: uploads.scanner)

        // POST /admin/explain, only when switched on (admin API keys only).
        // The store's events (RGW push, MinIO webhook, SNS), only when switched on.
        let events =
            config.events.enabled
            ? EventsService(
                config: config, store: store, processor: uploads.eventProcessor, caFile: config.events.snsCaFile,
                nowMillis: env.nowMillis, log: log) : nil
        let eventRoutes = events?.routes() ?? []
        let explainRoutes =
            config.explain.enabled
            ? ExplainService(
                config: config, signer: { [signer = signers.configured] in signer.current }, storage: storage,
                gate: gate, env: env
            ).routes() : []
        // The webhook outbox's operator routes (admin API keys only), and its deliverer.
        webhooks = try Application.makeWebhookDeliverer(config, store: store, env: env, log: log)
        let webhookRoutes = WebhooksAdminService(
            store: store, gate: gate, admins: AdminKeys(config.auth.apiKeys, maxTokenBytes: config.auth.maxTokenBytes),
            nowMillis: env.nowMillis
        ).routes()
        var apiRoutes =
            presign.routes() + images.routes() + OpenAPIService.routes() + explainRoutes + eventRoutes + webhookRoutes
        if let multipart = uploads.multipart {
            if config.uppy.enabled {
                apiRoutes += MultipartService(config: config, uploads: uploads, multipart: multipart, gate: gate)
                    .routes()
            }
        }
        if let native = uploads.native {
            apiRoutes += UploadsService(config: config, uploads: uploads, native: native, gate: gate).routes()
        }
        (router, opsRouter) = Application.makeRouters(
            config,
            apiRoutes: CORSPolicy(
                config.cors, devUserHeader: config.auth.mode == .dev ? config.auth.devUserHeader : nil
            )
            .apply(try compat.routes(besides: apiRoutes)),
            opsRoutes: ops.routes())
        serverOptions = Application.serverOptions(config)

        Application.registerMetrics(metrics, intents: intentWriter, store: store, gate: gate, committer: committer)
        metrics.register(
            name: "presignd_content_refused_total",
            help: "Uploads refused at confirmation because their bytes are no image of an allowed format."
        ) { [uploads] in uploads.confirmer.contentRefusals.load(ordering: .relaxed) }
        credentials.registerMetrics(metrics, refusals: { [signers] in signers.refusalCount })
        Application.registerJanitorMetrics(metrics, uploads.janitor)
        bucketStatus.register(metrics)
        Application.registerClaimMetrics(metrics, uploads.confirmer)
        Application.registerIntegrityMetrics(metrics, uploads.confirmer)
        if let scanner = uploads.scanner {
            Application.registerScanMetrics(metrics, scanner: scanner, store: store, env: env)
        }
        if let webhooks {
            Application.registerWebhookMetrics(metrics, deliverer: webhooks, store: store, env: env)
        }
        if let processor = uploads.eventProcessor {
            Application.registerEventMetrics(
                metrics, processor: processor, events: events, store: store, reconciler: uploads.janitor.reconciler,
                env: env)
        }
    }

    /// Starts the work of the application's own threads: the janitor, the store events' processor, the
    /// webhook deliverer, the malware scanner, the credentials' refresher and the shared rate limits' synchronisation.
    public func start() {
        uploads.janitor.start()
        uploads.eventProcessor?.start()
        webhooks?.start()
        uploads.scanner?.start()
        credentials.start()
        gate.sync?.start()
    }

    /// The first step of a graceful stop: `/readyz` answers 503 from now on while every route is still
    /// served, so a load balancer stops sending requests before the listeners close.
    public func beginDrain() {
        ops.beginDraining()
    }

    /// Stops the application's threads (call it once no request is in flight any more): the janitor,
    /// the events' processor, the webhook deliverer, the refresher and the synchronisation, then the group committer and the
    /// intent writer, which commit what they hold first. Blocks until done.
    public func stop() {
        uploads.janitor.stop()
        uploads.eventProcessor?.stop()
        webhooks?.stop()
        uploads.scanner?.stop()
        credentials.stop()
        gate.sync?.stop()
        committer.shutdown()
        intentWriter.shutdown()
    }
}
