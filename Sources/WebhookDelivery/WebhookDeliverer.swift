import HTTPClient
import Records
import Synchronization
import System
import Webhooks

/// Delivers the outbox's webhook events (docs/webhooks.md): per endpoint, a `LeasedRunner` on the lease
/// `webhooks:<endpoint>` runs its passes only while this process holds it, so one instance at a time
/// sends an endpoint's deliveries; a pass takes the due ones (each the first pending of its subject, so
/// the events of one record go out in order), sends them on the endpoint's own threads (at most
/// `concurrency` at once), and settles every attempt of the round in one write fenced by the lease.
///
/// 2xx is delivered; any other status, a timeout or a failed connection is an attempt failed, due again
/// after the schedule's backoff, and `failed` after the last (reported once, `failedForGood`). A request
/// starts only while the lease holds for longer than the request may take, so it ends before another
/// instance could take the lease over and send the same delivery. A settlement lost with the lease, or
/// to a crash, means the delivery is sent again under the same `webhook-id`: receivers dedup on it.
/// Nothing here runs on the server's event loops or workers.
public final class WebhookDeliverer: @unchecked Sendable {
    /// The prefix of the endpoints' lease names.
    public static let leasePrefix = "webhooks:"
    /// How often finished deliveries past retention are pruned, in milliseconds.
    static let pruneIntervalMs: Int64 = 60_000

    /// The outbox and the leases.
    let store: any WebhookOutbox & LeaseStore
    /// Where deliveries go.
    let endpoints: [WebhookEndpoint]
    /// Signs each attempt.
    let signer: WebhookSigner
    /// The schedule, limits and lease settings.
    let options: WebhookDeliveryOptions
    /// The requests' client (its own pool of connections).
    let client: HTTPClient
    /// The clock (epoch ms).
    let now: @Sendable () -> Int64
    /// The jitter's draw, in [0, 1).
    let random: @Sendable () -> Double
    /// Hears what happens (the log).
    let events: @Sendable (WebhookDeliveryEvent) -> Void
    /// The runners and their pools, while started.
    private var running: [(runner: LeasedRunner, pool: SenderPool)] = []
    /// When finished deliveries were last pruned (epoch ms).
    let prunedAtMs = Atomic<Int64>(0)
    /// The endpoints held after rounds they did not answer, by name.
    let holds = Mutex<[String: EndpointHold]>([:])

    /// Attempts answered 2xx (`presignd_webhook_deliveries_total{outcome="delivered"}`).
    public let delivered = Atomic<Int>(0)
    /// Attempts failed and due again (`{outcome="retried"}`).
    public let retried = Atomic<Int>(0)
    /// Deliveries failed for good (`{outcome="failed"}`).
    public let failed = Atomic<Int>(0)
    /// Endpoints whose lease this process holds now.
    public let leasesHeld = Atomic<Int>(0)

    /// A deliverer of `store`'s outbox to `endpoints`, signing with `signer`; `now` is the clock (epoch
    /// ms), `random` draws the backoff's jitter in [0, 1), `events` hears what happens.
    public init(
        store: any WebhookOutbox & LeaseStore, endpoints: [WebhookEndpoint], signer: WebhookSigner,
        options: WebhookDeliveryOptions, now: @escaping @Sendable () -> Int64,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        events: @escaping @Sendable (WebhookDeliveryEvent) -> Void = { _ in }
    ) {
        self.store = store
        self.endpoints = endpoints
        self.signer = signer
        self.options = options
        self.now = now
        self.random = random
        self.events = events
        client = HTTPClient(
            options: HTTPClientOptions(
                requestTimeoutMs: options.timeoutMs, connectTimeoutMs: min(options.timeoutMs, 5000),
                caFile: options.caFile, maxResponseBytes: 1 << 20, maxIdleConnections: options.concurrency,
                idleTimeoutMs: 2000))
    }

    /// Starts one runner per endpoint: whenever this process holds the endpoint's lease, a pass every
    /// `pollIntervalMs`.
    public func start() {
        for endpoint in endpoints {
            let pool = SenderPool(count: options.concurrency, name: "presignd-webhook", nice: options.senderNice)
            let runner = LeasedRunner(
                store: store,
                options: .init(
                    name: Self.leasePrefix + endpoint.name, holder: options.holder, ttlMs: options.leaseTtlMs,
                    intervalMs: options.pollIntervalMs),
                now: now, events: { [self] event in noted(event, endpoint: endpoint.name) }
            ) { [self] pass in runPass(endpoint, fence: .lease(pass), pool: pool) }
            running.append((runner, pool))
            runner.start()
        }
    }

    /// Stops the runners (a pass in progress finishes its round's requests, then stops) and the senders'
    /// threads, gives the leases up and waits.
    public func stop() {
        for (runner, pool) in running {
            runner.stop()
            pool.stop()
        }
        running = []
        leasesHeld.store(0, ordering: .relaxed)
    }

    /// Counts and reports what a runner did.
    private func noted(_ event: LeasedRunner.Event, endpoint: String) {
        switch event {
        case .acquired(let lease, let tookOver):
            leasesHeld.add(1, ordering: .relaxed)
            events(.leaseAcquired(endpoint: endpoint, holder: lease.holder, token: lease.token, tookOver: tookOver))
        case .lost(let lease):
            leasesHeld.subtract(1, ordering: .relaxed)
            events(.leaseLost(endpoint: endpoint, holder: lease.holder, token: lease.token))
        case .storeFailed(let error):
            events(.storeFailed(endpoint: endpoint, error: error))
        case .passFinished:
            break
        }
    }
}
