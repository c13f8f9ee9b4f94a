import HTTPServer
import System

/// Holds the server's metrics once the server exists.
final class MetricsBox: @unchecked Sendable {
    private let lock = Monitor()
    private var metrics: ServerMetrics?

    /// Keeps `m` (once the server exists).
    func set(_ m: ServerMetrics) { lock.withLock { metrics = m } }

    /// The metrics in Prometheus text format; empty before `set`.
    func render() -> String { lock.withLock { metrics }?.render() ?? "" }
}
