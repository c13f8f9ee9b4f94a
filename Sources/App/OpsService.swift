import HTTPServer
import JSON
import Records

/// `/healthz` (liveness), `/readyz` (readiness: the database and storage answer, and the clocks agree)
/// and `/metrics`.
final class OpsService: Sendable {
    private let store: any RecordStore
    private let metricsSource: @Sendable () -> String
    private let storageCheck: (@Sendable () -> [(name: String, problem: String?)])?

    /// `storageCheck` returns the storage-side checks by name (`storage`, `clock`), each with nil when
    /// it passes, else a short reason.
    init(
        store: any RecordStore, metrics: @escaping @Sendable () -> String,
        storageCheck: (@Sendable () -> [(name: String, problem: String?)])?
    ) {
        self.store = store
        self.metricsSource = metrics
        self.storageCheck = storageCheck
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

    /// Checks each dependency (blocking; runs on a worker).
    func readiness() -> Response {
        var checks: [(String, String)] = []
        var ok = true
        do {
            try store.ping()
            checks.append(("database", "ok"))
        } catch {
            ok = false
            checks.append(("database", "unavailable"))
        }
        for (name, problem) in storageCheck?() ?? [] {
            if let problem {
                ok = false
                checks.append((name, problem))
            } else {
                checks.append((name, "ok"))
            }
        }
        var w = JSONWriter(reservingCapacity: 128)
        w.beginObject()
        w.key("status")
        w.string(ok ? "ready" : "not ready")
        w.key("checks")
        w.beginObject()
        for (k, v) in checks {
            w.key(k)
            w.string(v)
        }
        w.endObject()
        w.endObject()
        return .json(ok ? 200 : 503, w.bytes, extraHeaders: [("Cache-Control", "no-store")])
    }
}
