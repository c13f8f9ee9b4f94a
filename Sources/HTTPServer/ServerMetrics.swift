import Synchronization

/// Request counters, a latency histogram, open connections and in-flight requests, rendered in the
/// Prometheus text format. Each event loop records into its own shard (an uncontended lock), and
/// `render()` adds the shards up.
public final class ServerMetrics: Sendable {
    /// Upper bounds of the latency histogram's buckets, in seconds.
    static let bucketBounds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    struct Key: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    struct Histogram {
        var buckets = [Int](repeating: 0, count: ServerMetrics.bucketBounds.count)
        var count = 0
        var sumMicros: Int64 = 0

        /// Counts one observation, in place.
        mutating func observe(micros: Int64) {
            let seconds = Double(micros) / 1_000_000
            var i = 0
            while i < ServerMetrics.bucketBounds.count && seconds > ServerMetrics.bucketBounds[i] { i += 1 }
            if i < buckets.count { buckets[i] += 1 }
            count += 1
            sumMicros += micros
        }
    }

    /// What one shard counted for one route: the answers by method and status, and the latencies.
    struct RouteStats {
        /// Requests answered, by method and status (a handful per route: searched in order).
        var answers: [(method: String, status: Int, count: Int)] = []
        /// How long the route's requests took.
        var latency = Histogram()

        /// Counts one answer, in place.
        mutating func record(method: String, status: Int, micros: Int64) {
            if let i = answers.firstIndex(where: { $0.status == status && $0.method == method }) {
                answers[i].count += 1
            } else {
                answers.append((method, status, 1))
            }
            latency.observe(micros: micros)
        }
    }

    struct Shard {
        /// By route template: one dictionary lookup per request.
        var routes: [String: RouteStats] = [:]
    }

    final class ShardBox: Sendable {
        let state = Mutex(Shard())
    }

    private let shards: [ShardBox]
    /// Connections open right now.
    let openConnections = Atomic<Int>(0)
    /// Requests being handled (head read, response not yet written).
    let inFlight = Atomic<Int>(0)
    private let counters = Mutex<[(name: String, help: String, value: @Sendable () -> Int)]>([])
    private let labelled = Mutex<
        [(name: String, help: String, label: String, samples: @Sendable () -> [(value: String, count: Int)])]
    >([])

    /// Metrics with `shards` request shards (one per event loop that records into them; at least one).
    /// The application makes them before its server, so its gauges are registered without a listener.
    public init(shards: Int) {
        self.shards = (0..<max(1, shards)).map { _ in ShardBox() }
    }

    /// How many shards record requests (an event loop records into the one of its index).
    public var shardCount: Int { shards.count }

    /// Records one answered request on `shard` (below `shardCount`).
    public func record(shard: Int, route: String, method: String, status: Int, micros: Int64) {
        shards[shard].state.withLock { s in
            s.routes[route, default: RouteStats()].record(method: method, status: status, micros: micros)
        }
    }

    /// Adds an application gauge or counter read at scrape time (name must be a valid metric name).
    public func register(name: String, help: String, value: @escaping @Sendable () -> Int) {
        counters.withLock { $0.append((name, help, value)) }
    }

    /// Adds an application gauge or counter with one label, read at scrape time: one line per sample,
    /// `name{label="value"} count` (label values are the application's own names, escaped as the
    /// format requires).
    public func register(
        name: String, help: String, label: String,
        samples: @escaping @Sendable () -> [(value: String, count: Int)]
    ) {
        labelled.withLock { $0.append((name, help, label, samples)) }
    }

    /// The metrics in Prometheus text exposition format 0.0.4.
    public func render() -> String {
        var requests: [Key: Int] = [:]
        var latency: [String: Histogram] = [:]
        for sh in shards {
            sh.state.withLock { s in
                for (r, stats) in s.routes {
                    for a in stats.answers {
                        requests[Key(route: r, method: a.method, status: a.status), default: 0] += a.count
                    }
                    let h = stats.latency
                    var t = latency[r] ?? Histogram()
                    for i in 0..<t.buckets.count { t.buckets[i] += h.buckets[i] }
                    t.count += h.count
                    t.sumMicros += h.sumMicros
                    latency[r] = t
                }
            }
        }
        var out = ""
        out += "# HELP presignd_http_requests_total Requests answered, by route template, method and status.\n"
        out += "# TYPE presignd_http_requests_total counter\n"
        for (k, v) in requests.sorted(by: {
            ($0.key.route, $0.key.method, $0.key.status) < ($1.key.route, $1.key.method, $1.key.status)
        }) {
            out +=
                "presignd_http_requests_total{route=\"\(k.route)\",method=\"\(k.method)\",status=\"\(k.status)\"} \(v)\n"
        }
        out += "# HELP presignd_http_request_duration_seconds Time from a request's head to its response, by route.\n"
        out += "# TYPE presignd_http_request_duration_seconds histogram\n"
        for (route, h) in latency.sorted(by: { $0.key < $1.key }) {
            var cumulative = 0
            for (i, bound) in ServerMetrics.bucketBounds.enumerated() {
                cumulative += h.buckets[i]
                out +=
                    "presignd_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            out += "presignd_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(h.count)\n"
            out += "presignd_http_request_duration_seconds_sum{route=\"\(route)\"} \(Double(h.sumMicros) / 1_000_000)\n"
            out += "presignd_http_request_duration_seconds_count{route=\"\(route)\"} \(h.count)\n"
        }
        out += "# HELP presignd_open_connections Client connections open now.\n"
        out += "# TYPE presignd_open_connections gauge\n"
        out += "presignd_open_connections \(openConnections.load(ordering: .relaxed))\n"
        out += "# HELP presignd_requests_in_flight Requests being handled now.\n"
        out += "# TYPE presignd_requests_in_flight gauge\n"
        out += "presignd_requests_in_flight \(inFlight.load(ordering: .relaxed))\n"
        for c in counters.withLock({ $0 }) {
            out += "# HELP \(c.name) \(c.help)\n"
            out += "# TYPE \(c.name) \(c.name.hasSuffix("_total") ? "counter" : "gauge")\n"
            out += "\(c.name) \(c.value())\n"
        }
        for family in labelled.withLock({ $0 }) {
            out += "# HELP \(family.name) \(family.help)\n"
            out += "# TYPE \(family.name) \(family.name.hasSuffix("_total") ? "counter" : "gauge")\n"
            for sample in family.samples() {
                out +=
                    "\(family.name){\(family.label)=\"\(ServerMetrics.escapedLabel(sample.value))\"} \(sample.count)\n"
            }
        }
        return out
    }

    /// A label value in the exposition format: `\\`, `"` and line feeds escaped.
    static func escapedLabel(_ value: String) -> String {
        guard value.contains(where: { $0 == "\\" || $0 == "\"" || $0 == "\n" }) else { return value }
        var out = ""
        for c in value {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(c)
            }
        }
        return out
    }
}
