import Auth
import CloudCredentials
import Config
import Crypto
import HTTP1
import HTTPServer
import Logging
import ObjectStore
import Records
import SigV4
import System
import Uploads

/// The served application: the `AppCore` (routers, and everything behind them) and the listeners
/// that serve it, the main server and, when `server.metricsPort` is set, the operations server. Its
/// static members are the wiring's named steps, which `AppCore` assembles in order.
public final class Application: Sendable {
    /// The application the servers serve.
    public let core: AppCore
    /// The HTTP server (its `port` is the bound one).
    public let server: HTTPServer
    /// The operations listener when `server.metricsPort` is set (`/metrics`, `/healthz`, `/readyz`).
    public let metricsServer: HTTPServer?
    /// The records store.
    public var store: any LifecycleStore { core.store }

    /// Builds every part from `config` and binds the listeners; nothing is served until `start()`.
    public init(config: PresigndConfig, env: AppEnvironment, log: LogSink = LogSink()) throws(AppError) {
        let core = try AppCore(config: config, env: env, log: log)
        self.core = core
        do {
            (server, metricsServer) = try Application.makeServers(config, core: core, log: log)
        } catch {
            core.stop()  // the writers' threads must not outlive a start that failed
            throw error
        }
    }

    /// The three signers of the current credentials: client P's URLs (path-style, public endpoint),
    /// every other URL (configured addressing, public endpoint), and the server's own calls to storage
    /// (configured addressing, internal endpoint). Each is a `RotatingPresigner`: a refresh swaps the
    /// presigner inside, and each URL is signed by one set of credentials, its lifetime clamped to theirs.
    struct Signers: Sendable {
        /// Client P's URLs: path-style, public endpoint.
        let pathStyle: RotatingPresigner
        /// Every other URL: configured addressing, public endpoint.
        let configured: RotatingPresigner
        /// The server's own calls to storage: configured addressing, internal endpoint.
        let internalSigner: RotatingPresigner
        /// The endpoint the server itself calls.
        let internalEndpoint: Endpoint

        /// Hands new credentials to every signer (a signer that refuses them keeps its own).
        func rotate(to credentials: Credentials) throws(SigV4Error) {
            for signer in [pathStyle, configured, internalSigner] { try signer.rotate(to: credentials) }
        }

        /// URLs refused for want of credential lifetime, over every signer.
        var refusalCount: Int { pathStyle.refusalCount + configured.refusalCount + internalSigner.refusalCount }
    }

    /// Step 1: the signers, from the credentials the chain gave and the S3 endpoints.
    static func makeSigners(_ s3: S3Config, credentials: Credentials) throws(AppError) -> Signers {
        let publicEndpointText = s3.effectivePublicEndpoint
        do {
            let endpoint = try Endpoint(parsing: publicEndpointText)
            let internalEndpoint = try Endpoint(parsing: s3.endpoint)
            let style: AddressingStyle
            switch s3.addressing {
            case .path: style = .path
            case .virtual: style = .virtual
            case .auto: style = .auto
            }
            func signer(_ endpoint: Endpoint, _ addressing: AddressingStyle) throws(SigV4Error) -> RotatingPresigner {
                RotatingPresigner(
                    try Presigner(
                        credentials: credentials, region: s3.region, endpoint: endpoint, addressing: addressing),
                    minimumLifetimeSeconds: s3.minimumUrlLifetimeSeconds)
            }
            return Signers(
                pathStyle: try signer(endpoint, .path), configured: try signer(endpoint, style),
                internalSigner: try signer(internalEndpoint, style), internalEndpoint: internalEndpoint)
        } catch {
            throw .startup("s3", "cannot sign for \(publicEndpointText): \(error)")
        }
    }

    /// Step 1b: the holder of the credentials, whose refresher rotates `signers`; `random` draws the
    /// refresh jitter and the retry backoff.
    static func makeCredentials(
        _ config: PresigndConfig, provider: any CredentialsProvider, initial: ProvidedCredentials, signers: Signers,
        env: AppEnvironment, log: LogSink,
        random: @escaping @Sendable (_ upperBound: Int) -> Int = { Int.random(in: 0...max(0, $0)) }
    ) -> AppCredentials {
        let s3 = config.s3
        let policy = RefreshPolicy(
            refreshBeforeExpirySeconds: Int64(s3.refreshBeforeExpirySeconds),
            jitterSeconds: Int64(s3.refreshJitterSeconds))
        return AppCredentials(
            provider: provider, initial: initial, policy: policy, now: { env.nowMillis() / 1000 }, random: random,
            onRotate: { credentials in
                do throws(SigV4Error) {
                    try signers.rotate(to: credentials)
                } catch {
                    log.error("new credentials cannot sign; the old ones stay", ["error": "\(error)"])
                }
                if let reason = ClientPContract.conflict(config, credentials: credentials, provider: provider.name) {
                    log.warn("client P's uploads will fail", ["reason": reason])
                }
            }, log: log)
    }

    /// Step 2b: the storage client of CompleteMultipartUpload: the server's own, with `uppy.completeTimeoutMs`.
    static func makeCompleteStorage(_ config: PresigndConfig, signers: Signers, env: AppEnvironment) -> S3Client {
        var s3 = config.s3
        s3.requestTimeoutMs = max(s3.requestTimeoutMs, config.uppy.completeTimeoutMs)
        return makeStorage(s3, signers: signers, env: env)
    }

    /// Step 2: the client of the server's own calls to storage.
    static func makeStorage(_ s3: S3Config, signers: Signers, env: AppEnvironment) -> S3Client {
        S3Client(
            options: ObjectStoreOptions(
                endpoint: signers.internalEndpoint, bucket: s3.bucket, requestTimeoutMs: s3.requestTimeoutMs,
                maxRetries: s3.maxRetries, caFile: s3.caFile, connectHost: s3.connectHost),
            signer: signers.internalSigner, now: { env.nowMillis() / 1000 })
    }

    /// Step 3: the records store, opened and migrated.
    static func openStore(_ records: RecordsConfig) throws(AppError) -> any LifecycleStore {
        do {
            let store = try RecordStoreFactory.open(records.storeSettings)
            try store.migrate()
            return store
        } catch {
            throw .startup("records", "\(error)")
        }
    }

    /// Step 4: the writer that commits issued URLs' intents in batches before they are answered (at most
    /// `records.intentQueueLimit` waiting, each within `records.intentCommitTimeoutMs`, in
    /// `records.intentWriterLanes` lanes or the store's choice); a failed batch is logged.
    static func makeIntentWriter(_ records: RecordsConfig, store: any RecordStore, log: LogSink) -> IntentWriter {
        IntentWriter(
            store: store, batchSize: records.intentBatchSize, maxPending: records.intentQueueLimit,
            maxWaitMs: records.intentCommitTimeoutMs,
            lanes: records.intentWriterLanes > 0 ? records.intentWriterLanes : nil,
            onError: { error in log.error("intent batch not stored", ["error": "\(error)"]) })
    }

    /// Step 5: `/healthz`, `/readyz` (the store, and one probe of the bucket for storage and its clock,
    /// its outcome kept in `bucketStatus`) and `/metrics`.
    static func makeOpsService(
        _ s3: S3Config, store: any RecordStore, storage: some ObjectStorage, credentials: AppCredentials,
        bucketStatus: BucketStatus, metrics: ServerMetrics, env: AppEnvironment, log: LogSink,
        scanner: ScanRunner? = nil
    ) -> OpsService {
        OpsService(
            store: store, metrics: { metrics.render() },
            storageCheck: { [maxSkew = s3.maxClockSkewSeconds] in
                // One probe of the bucket answers both: does storage take our requests (and if not, why),
                // and does its clock (the Date header, sent with refusals too) agree with ours.
                let probe: Result<S3Client.BucketProbe, ObjectStoreError>
                do throws(ObjectStoreError) {
                    probe = .success(try storage.probeBucket())
                } catch {
                    probe = .failure(error)
                }
                bucketStatus.note(StorageReadiness.bucketCheck(probe))
                return [credentials.readinessCheck()]
                    + StorageReadiness.checks(probe: probe, nowMillis: env.nowMillis(), maxSkewSeconds: maxSkew)
                    + (scanner.map { [Application.scannerReadiness($0)] } ?? [])
            }, log: log)
    }

    /// The options of the main listener.
    static func serverOptions(_ config: PresigndConfig) -> ServerOptions {
        var options = ServerOptions()
        options.host = config.server.host
        options.port = config.server.port
        options.eventLoops = config.server.eventLoops
        options.workerThreads = config.server.workerThreads
        // The read-URL routes read records and sign, waiting on nothing slow: one thread per loop for
        // SQLite (a read from its page cache needs only a CPU); for PostgreSQL as many as the store's
        // connections, each read waiting for its round trip.
        if case .postgres = config.records.location { options.briefWorkerThreads = config.records.poolSize }
        options.maxQueuedJobs = config.server.workerQueueLimit
        options.maxConnections = config.server.maxConnections
        options.headerTimeoutMs = config.server.headerTimeoutMs
        options.bodyTimeoutMs = config.server.bodyTimeoutMs
        options.idleTimeoutMs = config.server.idleTimeoutMs
        options.drainTimeoutMs = config.server.drainTimeoutMs
        options.maxPipelinedPerRead = config.server.maxPipelinedPerRead
        options.accessLog = config.log.accessLog
        options.errorBody = ErrorBody.json
        if config.tls.enabled {
            let minVersion: TLSOptions.Version
            switch config.tls.minVersion {
            case .tls12: minVersion = .tls12
            case .tls13: minVersion = .tls13
            }
            options.tls = TLSOptions(
                certificateFile: config.tls.certificateFile, privateKeyFile: config.tls.privateKeyFile,
                minVersion: minVersion)
        }
        return options
    }

    /// Step 6: the routers: the main one, and the operations one when `server.metricsPort` is set
    /// (metrics then move there, for a scraper on a private network; health stays on both).
    static func makeRouters(_ config: PresigndConfig, apiRoutes: [Route], opsRoutes: [Route]) -> (Router, Router?) {
        var router = Router()
        for r in apiRoutes { router.add(r) }
        let separateMetrics = config.server.metricsPort != 0
        for r in opsRoutes where !separateMetrics || r.template != "/metrics" { router.add(r) }
        guard separateMetrics else { return (router, nil) }
        var opsRouter = Router()
        for r in opsRoutes { opsRouter.add(r) }
        return (router, opsRouter)
    }

    /// The options of the operations listener (`server.metricsPort`): one loop, one worker.
    static func opsServerOptions(_ config: PresigndConfig) -> ServerOptions {
        var o = ServerOptions()
        o.host = config.server.host
        o.port = config.server.metricsPort
        o.eventLoops = 1
        o.workerThreads = 1
        o.maxConnections = 64
        o.accessLog = false
        o.errorBody = ErrorBody.json
        return o
    }

    /// Step 8 (serving only): the main server over `core`'s router and metrics, and the operations
    /// server over its operations router; both bind their listeners here.
    static func makeServers(_ config: PresigndConfig, core: AppCore, log: LogSink) throws(AppError) -> (
        HTTPServer, HTTPServer?
    ) {
        do {
            let server = try HTTPServer(
                options: core.serverOptions, router: core.router, metrics: core.metrics, logSink: log)
            guard let opsRouter = core.opsRouter else { return (server, nil) }
            return (server, try HTTPServer(options: opsServerOptions(config), router: opsRouter, logSink: log))
        } catch {
            throw .startup("server", "\(error)")
        }
    }

    /// Step 7: the application's gauges and counters next to the server's own.
    static func registerMetrics(
        _ metrics: ServerMetrics, intents: IntentWriter, store: any RecordStore, gate: Gate, committer: GroupCommitter
    ) {
        metrics.register(
            name: "presignd_intents_pending", help: "Upload intents waiting for their commit (their requests parked)."
        ) { intents.pendingCount }
        metrics.register(
            name: "presignd_intents_stored_total", help: "Issued URLs' intents committed before their answer."
        ) { intents.outcomeCounts.stored }
        metrics.register(
            name: "presignd_intent_commit_timeouts_total",
            help:
                "Issue requests answered 503 because their intent was not stored within records.intentCommitTimeoutMs."
        ) { intents.outcomeCounts.timedOut }
        metrics.register(
            name: "presignd_intents_refused_total",
            help: "Issue requests answered 503 because the intent queue was full (records.intentQueueLimit) or refused."
        ) { intents.outcomeCounts.refused }
        metrics.register(
            name: "presignd_quota_exceeded_total",
            help: "Issue requests answered 429 QUOTA_EXCEEDED: the user's daily quota was reached."
        ) { intents.quotaExceededCount }
        metrics.register(
            name: "presignd_rate_limited_issue_total", help: "Issue requests refused with 429."
        ) { gate.limitedIssue.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_rate_limited_confirm_total", help: "Confirm and records requests refused with 429."
        ) { gate.limitedConfirm.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_rate_limited_companion_total",
            help: "Uppy Companion route requests (/s3/params, /s3/multipart) refused with 429."
        ) { gate.limitedUppy.load(ordering: .relaxed) }
        if let sync = gate.sync {
            metrics.register(
                name: "presignd_rate_limit_syncs_total",
                help: "Synchronisations of the shared rate limits with the store."
            ) { sync.syncs.load(ordering: .relaxed) }
            metrics.register(
                name: "presignd_rate_limit_sync_failures_total",
                help: "Failed synchronisations of the shared rate limits (their consumption goes with the next)."
            ) { sync.failures.load(ordering: .relaxed) }
        }
        metrics.register(name: "presignd_record_batches_total", help: "Group-commit transactions of records.") {
            committer.batchesCommitted
        }
    }

    /// The janitor's counters.
    static func registerJanitorMetrics(_ metrics: ServerMetrics, _ janitor: Janitor) {
        metrics.register(name: "presignd_janitor_sweeps_total", help: "Janitor sweeps finished.") {
            janitor.sweeps.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_janitor_failed_sweeps_total", help: "Janitor sweeps stopped by an error (retried later)."
        ) { janitor.failedSweeps.load(ordering: .relaxed) }
        metrics.register(name: "presignd_janitor_intents_removed_total", help: "Expired intents removed.") {
            janitor.intentsRemoved.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_janitor_quotas_released_total",
            help: "Daily quota reservations given back by the janitor (intents expired unconfirmed)."
        ) { janitor.quotasReleased.load(ordering: .relaxed) }
        metrics.register(name: "presignd_janitor_objects_deleted_total", help: "Objects the janitor deleted.") {
            janitor.objectsDeleted.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_janitor_replaced_objects_deleted_total",
            help: "Objects of replaced records the janitor deleted from the pending deletions."
        ) { janitor.replacedDeleted.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_janitor_intents_held_total",
            help: "Expired intents left for the next sweep because another claimant held them."
        ) { janitor.intentsHeld.load(ordering: .relaxed) }
        metrics.register(name: "presignd_janitor_claims_pruned_total", help: "Settled claims pruned.") {
            janitor.claimsPruned.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_janitor_lease_held",
            help: "1 while this instance holds the janitor's lease (runs the janitor's passes), else 0."
        ) { janitor.leaseHeld.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_janitor_lease_acquired_total", help: "Times this instance took the janitor's lease."
        ) { janitor.leasesAcquired.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_janitor_lease_lost_total",
            help: "Times this instance lost the janitor's lease while holding it (its passes stopped at once)."
        ) { janitor.leasesLost.load(ordering: .relaxed) }
        if let multipart = janitor.multipart {
            metrics.register(
                name: "presignd_multipart_aborted_total",
                help: "Multipart uploads this server created, never completed, aborted by the janitor."
            ) { multipart.aborts.load(ordering: .relaxed) }
        }
    }

    /// Starts serving, and the application's own threads.
    public func start() {
        server.start()
        metricsServer?.start()
        core.start()
    }

    /// Reloads the TLS certificate and key from their files for new connections (SIGHUP); a no-op
    /// without TLS. A failed reload keeps the old certificate and reports why.
    public func reloadTLS() -> String? {
        do {
            try server.reloadTLS()
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// The first step of a graceful stop (SIGTERM): `/readyz` answers 503 from now on while every route is
    /// still served, so a load balancer stops sending requests before the listeners close (`stop`).
    public func beginDrain() {
        core.beginDrain()
    }

    /// Graceful stop: drain the server (parked issue requests are answered as their commits end), then
    /// stop the application's threads and writers. Blocks until done.
    public func stop() {
        server.shutdown()
        metricsServer?.shutdown()
        server.wait()
        metricsServer?.wait()
        core.stop()
    }

    /// The caller resolver of `auth.mode` behind the rate limits of `limits`: this process's own buckets,
    /// or, with a `shared` store (PostgreSQL), buckets shared by every instance on it.
    static func makeGate(
        config: PresigndConfig, env: AppEnvironment, log: LogSink, shared: (any RateBucketStore)? = nil
    ) throws(AppError) -> Gate {
        let a = config.auth
        let callers: any CallerResolver
        switch a.mode {
        case .jwt:
            let settings = AuthSettings(
                algorithms: Set(a.jwtAlgorithms.compactMap(JWTAlgorithm.init(rawValue:))),
                issuer: a.jwtIssuer, audience: a.jwtAudience,
                leewaySeconds: Int64(a.jwtLeewaySeconds), userClaim: a.jwtUserClaim, maxTokenBytes: a.maxTokenBytes,
                apiKeys: a.apiKeys.compactMap { APIKey(id: $0.id, sha256Hex: $0.sha256) })
            let keys: KeySet
            do {
                keys = try KeySet.load(pemFiles: a.jwtPublicKeyFiles, jwksFile: a.jwksFile, hs256Secret: a.hs256Secret)
            } catch {
                throw .startup("auth", error.description)
            }
            for note in keys.notes { log.warn("auth key skipped", ["detail": note]) }
            callers = TokenCallerResolver(
                authenticator: Authenticator(configuration: settings, keys: keys),
                nowSeconds: { env.nowMillis() / 1000 }, log: log)
        case .none:
            callers = FixedCallerResolver(userId: a.devDefaultUserId)
        case .dev:
            callers = DevelopmentCallerResolver(header: a.devUserHeader, defaultUserId: a.devDefaultUserId, log: log)
        }
        let l = config.limits
        guard l.enabled else { return Gate(callers: callers) }
        let now: @Sendable () -> Int64 = { env.nowMillis() }
        let proxies = l.trustForwardedFor ? l.trustedProxies.compactMap(AddressRange.init) : []
        guard let shared else {
            func limiter(_ perMinute: Int, burst: Int? = nil) -> RateLimiter {
                RateLimiter(perMinute: perMinute, burst: burst ?? l.capacity(perMinute: perMinute), now: now)
            }
            return Gate(
                callers: callers,
                issue: .init(
                    perUser: limiter(l.issuePerUserPerMinute), perAddress: limiter(l.issuePerAddressPerMinute)),
                confirm: .init(
                    perUser: limiter(l.confirmPerUserPerMinute), perAddress: limiter(l.confirmPerAddressPerMinute)),
                uppy: .init(
                    perUser: limiter(
                        l.uppyPerUserPerMinute, burst: l.companionCapacity(perMinute: l.uppyPerUserPerMinute)),
                    perAddress: limiter(
                        l.uppyPerAddressPerMinute, burst: l.companionCapacity(perMinute: l.uppyPerAddressPerMinute))),
                trustedProxies: proxies)
        }
        func limiter(_ name: String, _ perMinute: Int, burst: Int? = nil) -> SharedRateLimiter {
            SharedRateLimiter(
                name: name, perMinute: perMinute, burst: burst ?? l.capacity(perMinute: perMinute), now: now)
        }
        // The Uppy routes' buckets hold a whole minute's worth (LimitsConfig.companionCapacity).
        let limiters = [
            limiter("issue-user", l.issuePerUserPerMinute), limiter("issue-address", l.issuePerAddressPerMinute),
            limiter("confirm-user", l.confirmPerUserPerMinute),
            limiter("confirm-address", l.confirmPerAddressPerMinute),
            limiter("uppy-user", l.uppyPerUserPerMinute, burst: l.companionCapacity(perMinute: l.uppyPerUserPerMinute)),
            limiter(
                "uppy-address", l.uppyPerAddressPerMinute,
                burst: l.companionCapacity(perMinute: l.uppyPerAddressPerMinute)),
        ]
        let sync = RateLimitSync(
            store: shared, limiters: limiters, instanceId: "presignd-" + env.newUUID(), intervalMs: l.syncIntervalMs,
            now: now)
        return Gate(
            callers: callers, issue: .init(perUser: limiters[0], perAddress: limiters[1]),
            confirm: .init(perUser: limiters[2], perAddress: limiters[3]),
            uppy: .init(perUser: limiters[4], perAddress: limiters[5]), trustedProxies: proxies, sync: sync)
    }
}
