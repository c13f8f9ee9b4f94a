import HTTPServer
import JSON
import Logging
import Records
import Synchronization
import System

/// `/healthz` (liveness), `/readyz` (readiness: the database and storage answer, and the clocks agree)
/// and `/metrics`.
final class OpsService: Sendable {
    private let store: any RecordStore
    private let metricsSource: @Sendable () -> String
    private let storageCheck: (@Sendable () -> [ReadinessCheck])?
    private let log: LogSink?
    /// The outcome of the last `/readyz` (the server is taken to be ready when it starts), so that a
    /// change is logged once, not on every probe.
    private let lastReady = Mutex(true)
    /// Set on SIGTERM: `/readyz` answers 503 from then on (the rest is still served until the listeners
    /// close), so a load balancer's health check takes this instance out before it stops accepting.
    private let draining = Atomic<Bool>(false)

    /// `storageCheck` returns the storage-side checks (`storage`, `clock`); a change of readiness is
    /// logged to `log` as a warning.
    init(
        store: any RecordStore, metrics: @escaping @Sendable () -> String,
        storageCheck: (@Sendable () -> [ReadinessCheck])?, log: LogSink? = nil
    ) {
        self.store = store
        self.metricsSource = metrics
        self.storageCheck = storageCheck
        self.log = log
    }

    /// The body of `/healthz`, also the static route of the benchmark.
    static let healthBody: [UInt8] = Array(#"{"status":"ok"}"#.utf8)

    func routes() -> [Route] {
        let health = Response.json(200, OpsService.healthBody, extraHeaders: [("Cache-Control", "no-store")])
        return [
            Route(.GET, "/healthz") { _ in .respond(health) },
            Route(.GET, "/readyz") { [self] _ in .blocking { self.readiness() } },
            Route(.GET, "/metrics") { [self] _ in
                .respond(
                    Response(
                        status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                        body: Array(metricsSource().utf8)))
            },
        ]
    }

    /// Makes `/readyz` answer 503 `draining` from now on.
    func beginDraining() { draining.store(true, ordering: .releasing) }

    /// Checks each dependency (blocking; runs on a worker); 503 without asking them once draining.
    func readiness() -> Response {
        if draining.load(ordering: .acquiring) {
            let body = JSONValue.object([
                "status": .string("not ready"),
                "checks": .object(["draining": .string("stopping: finishing requests, then closing")]),
            ]).serialized()
            return .json(503, body, extraHeaders: [("Cache-Control", "no-store")])
        }
        var checks: [ReadinessCheck] = []
        do {
            try store.ping()
            checks.append(.ok("database"))
        } catch {
            checks.append(.failed("database", "unavailable"))
        }
        checks += storageCheck?() ?? []
        let ok = checks.allSatisfy(\.passes)
        let status = ok ? "ready" : "not ready"
        let members = JSONObject(checks.map { ($0.name, JSONValue.string($0.text)) })
        lastReady.withLock { wasReady in
            guard wasReady != ok else { return }
            wasReady = ok
            log?.warn("readiness changed", ["status": status, "checks": JSONValue.object(members)])
        }
        let body = JSONValue.object(["status": .string(status), "checks": .object(members)]).serialized()
        return .json(ok ? 200 : 503, body, extraHeaders: [("Cache-Control", "no-store")])
    }
}
