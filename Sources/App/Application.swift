import Auth
import Config
import Crypto
import HTTP1
import HTTPServer
import ObjectStore
import Records
import SigV4

/// The assembled server: configuration in, routes wired to the records store, the signer and storage.
public final class Application: Sendable {
    /// The HTTP server (its `port` is the bound one).
    public let server: HTTPServer
    /// The operations listener when `server.metricsPort` is set (`/metrics`, `/healthz`, `/readyz`).
    public let metricsServer: HTTPServer?
    /// The records store.
    public let store: any RecordStore
    private let intentWriter: IntentWriter
    private let committer: GroupCommitter
    private let janitor: Janitor
    private let log: LogSink

    /// Builds every part from `config`; nothing listens until `start()`.
    public init(config: PresigndConfig, env: AppEnvironment, log: LogSink = LogSink()) throws(AppError) {
        self.log = log
        guard let accessKeyId = Application.accessKeyId(config), let secret = config.s3.secretAccessKey else {
            throw .startup(
                "s3",
                "credentials missing: set PRESIGN_S3_ACCESS_KEY_ID and PRESIGN_S3_SECRET_ACCESS_KEY (or their _FILE forms)"
            )
        }
        let credentials = Credentials(
            accessKeyId: accessKeyId, secretAccessKey: secret, sessionToken: config.s3.sessionToken)
        let publicEndpointText = config.s3.publicEndpoint.isEmpty ? config.s3.endpoint : config.s3.publicEndpoint
        let pathStyle: Presigner
        let configured: Presigner
        let internalSigner: Presigner
        let internalEndpoint: Endpoint
        do {
            let endpoint = try Endpoint(parsing: publicEndpointText)
            internalEndpoint = try Endpoint(parsing: config.s3.endpoint)
            let style = AddressingStyle(rawValue: config.s3.addressing) ?? .path
            pathStyle = try Presigner(
                credentials: credentials, region: config.s3.region, endpoint: endpoint, addressing: .path)
            configured = try Presigner(
                credentials: credentials, region: config.s3.region, endpoint: endpoint, addressing: style)
            internalSigner = try Presigner(
                credentials: credentials, region: config.s3.region, endpoint: internalEndpoint, addressing: style)
        } catch {
            throw .startup("s3", "cannot sign for \(publicEndpointText): \(error)")
        }
        let storage = S3Client(
            options: ObjectStoreOptions(
                endpoint: internalEndpoint, bucket: config.s3.bucket, requestTimeoutMs: config.s3.requestTimeoutMs,
                maxRetries: config.s3.maxRetries, caFile: config.s3.caFile.isEmpty ? nil : config.s3.caFile),
            signer: internalSigner, now: { env.nowMillis() / 1000 })

        let store: any RecordStore
        do {
            store = try RecordStoreFactory.open(
                url: config.records.url, poolSize: config.records.poolSize, busyTimeoutMs: config.records.busyTimeoutMs,
                intentIndexCapacity: config.records.intentIndexCapacity)
            try store.migrate()
        } catch {
            throw .startup("records", "\(error)")
        }
        self.store = store
        let sink = log
        intentWriter = IntentWriter(
            store: store, batchSize: config.records.intentBatchSize, flushIntervalMs: config.records.intentFlushMs,
            onError: { error in sink.error("intent batch not stored", ["error": "\(error)"]) })

        let gate = try Application.makeGate(config: config, env: env, log: log)
        let writer = intentWriter
        let presign = try PresignService(
            config: config, pathStyle: pathStyle, configured: configured, gate: gate, intents: intentWriter,
            env: env,
            keyUse: { imageKey, owner in
                if try store.record(imageKey: imageKey) != nil { return .recorded }
                if let i = try writer.intent(imageKey: imageKey), i.ownerId != owner, i.expiresAtMs > env.nowMillis() {
                    return .issuedToOther
                }
                return .free
            })

        committer = GroupCommitter(store: store, maxBatch: config.records.groupCommitMaxBatch)
        let images = ImagesService(
            config: config, store: store, committer: committer, intents: intentWriter,
            storage: config.s3.verifyUploads ? storage : nil, readSigner: configured, gate: gate, env: env)
        janitor = Janitor(
            store: store, storage: storage, deleteObjects: config.records.deleteUnconfirmedObjects,
            batchSize: config.records.janitorBatchSize, intervalMs: config.records.janitorIntervalMs, env: env, log: log
        )

        var router = Router()
        for r in presign.routes() { router.add(r) }
        for r in images.routes() { router.add(r) }
        for r in OpenAPIService.routes() { router.add(r) }

        var options = ServerOptions()
        options.host = config.server.host
        options.port = config.server.port
        options.eventLoops = config.server.eventLoops
        options.workerThreads = config.server.workerThreads
        options.maxConnections = config.server.maxConnections
        options.headerTimeoutMs = config.server.headerTimeoutMs
        options.bodyTimeoutMs = config.server.bodyTimeoutMs
        options.idleTimeoutMs = config.server.idleTimeoutMs
        options.drainTimeoutMs = config.server.drainTimeoutMs
        options.maxPipelinedPerRead = config.server.maxPipelinedPerRead
        options.accessLog = config.log.accessLog
        options.errorBody = ErrorBody.json
        if config.tls.enabled {
            options.tls = TLSOptions(
                certificateFile: config.tls.certificateFile, privateKeyFile: config.tls.privateKeyFile,
                minVersion: TLSOptions.Version(rawValue: config.tls.minVersion) ?? .tls12)
        }

        // The metrics route needs the server's metrics, and the server needs the routes: a box breaks the cycle.
        let metricsBox = MetricsBox()
        let ops = OpsService(
            store: store, metrics: { metricsBox.render() },
            storageCheck: { [maxSkew = config.s3.maxClockSkewSeconds] in
                // One probe of the bucket answers both: does storage take our requests (and if not, why),
                // and does its clock (the Date header, sent with refusals too) agree with ours.
                let probe: Result<S3Client.BucketProbe, ObjectStoreError>
                do throws(ObjectStoreError) {
                    probe = .success(try storage.probeBucket())
                } catch {
                    probe = .failure(error)
                }
                return StorageReadiness.checks(probe: probe, nowMillis: env.nowMillis(), maxSkewSeconds: maxSkew)
            }, log: log)
        let opsRoutes = ops.routes()
        if config.server.metricsPort == 0 {
            for r in opsRoutes { router.add(r) }
        } else {
            // Metrics on their own port (for a scraper on a private network); health stays on both.
            for r in opsRoutes where r.template != "/metrics" { router.add(r) }
        }
        do {
            server = try HTTPServer(options: options, router: router, logSink: log)
            if config.server.metricsPort != 0 {
                var opsRouter = Router()
                for r in opsRoutes { opsRouter.add(r) }
                var o = ServerOptions()
                o.host = config.server.host
                o.port = config.server.metricsPort
                o.eventLoops = 1
                o.workerThreads = 1
                o.maxConnections = 64
                o.accessLog = false
                o.errorBody = ErrorBody.json
                metricsServer = try HTTPServer(options: o, router: opsRouter, logSink: log)
            } else {
                metricsServer = nil
            }
        } catch {
            throw .startup("server", "\(error)")
        }
        metricsBox.set(server.metrics)
        server.metrics.register(name: "presignd_intents_pending", help: "Upload intents queued, not yet stored.") {
            writer.pendingCount
        }
        if let sqlite = store as? SQLiteRecordStore {
            server.metrics.register(
                name: "presignd_intent_index_entries",
                help: "Intents in SQLite's in-memory intent index (at most records.intentIndexCapacity)."
            ) { sqlite.intentIndexCount }
            server.metrics.register(
                name: "presignd_intent_index_overflow_total",
                help:
                    "Intents stored one row each because the intent index was full (raise records.intentIndexCapacity)."
            ) { sqlite.intentOverflowCount }
        }
        server.metrics.register(
            name: "presignd_rate_limited_issue_total", help: "Issue requests refused with 429."
        ) { gate.limitedIssue.load(ordering: .relaxed) }
        server.metrics.register(
            name: "presignd_rate_limited_confirm_total", help: "Confirm and records requests refused with 429."
        ) { gate.limitedConfirm.load(ordering: .relaxed) }
        let commits = committer
        server.metrics.register(name: "presignd_record_batches_total", help: "Group-commit transactions of records.") {
            commits.batchesCommitted
        }
    }

    /// Starts serving.
    public func start() {
        server.start()
        metricsServer?.start()
        janitor.start()
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

    /// Graceful stop: drain the server, then flush queued intents. Blocks until done.
    public func stop() {
        server.shutdown()
        metricsServer?.shutdown()
        server.wait()
        metricsServer?.wait()
        janitor.stop()
        committer.shutdown()
        intentWriter.shutdown()
    }

    /// The caller resolver of `auth.mode` behind the rate limits of `limits`.
    static func makeGate(config: PresigndConfig, env: AppEnvironment, log: LogSink) throws(AppError) -> Gate {
        let a = config.auth
        let callers: any CallerResolver
        switch a.mode {
        case "jwt":
            let settings = AuthSettings(
                algorithms: Set(a.jwtAlgorithms.compactMap(JWTAlgorithm.init(rawValue:))),
                issuer: a.jwtIssuer.isEmpty ? nil : a.jwtIssuer, audience: a.jwtAudience.isEmpty ? nil : a.jwtAudience,
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
        case "none":
            callers = FixedCallerResolver(userId: a.devDefaultUserId)
        default:
            callers = DevelopmentCallerResolver(header: a.devUserHeader, defaultUserId: a.devDefaultUserId)
        }
        let l = config.limits
        guard l.enabled else { return Gate(callers: callers) }
        let now: @Sendable () -> Int64 = { env.nowMillis() }
        func limiter(_ perMinute: Int) -> RateLimiter {
            RateLimiter(perMinute: perMinute, burst: l.capacity(perMinute: perMinute), now: now)
        }
        return Gate(
            callers: callers,
            issue: .init(perUser: limiter(l.issuePerUserPerMinute), perAddress: limiter(l.issuePerAddressPerMinute)),
            confirm: .init(
                perUser: limiter(l.confirmPerUserPerMinute), perAddress: limiter(l.confirmPerAddressPerMinute)),
            trustForwardedFor: l.trustForwardedFor)
    }

    private static func accessKeyId(_ config: PresigndConfig) -> String? {
        config.s3.accessKeyId.isEmpty ? nil : config.s3.accessKeyId
    }
}

/// Holds the server's metrics once the server exists.
final class MetricsBox: @unchecked Sendable {
    private let lock = ConditionLock()
    private var metrics: ServerMetrics?

    func set(_ m: ServerMetrics) { lock.withLock { metrics = m } }

    func render() -> String { lock.withLock { metrics }?.render() ?? "" }
}
