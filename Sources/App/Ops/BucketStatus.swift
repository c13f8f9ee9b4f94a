import HTTPServer
import ObjectStore
import Synchronization

/// The outcome of the last signed HEAD of the bucket: the start-up check's (`s3.startupCheck`), then
/// each `/readyz` probe's, shown as the gauge `presignd_storage_bucket_check{outcome}` (1 for the last
/// outcome, 0 for the others; all 0 before any check).
final class BucketStatus: Sendable {
    /// The outcomes' names (`BucketCheck.name`), in the gauge's order.
    static let outcomes = ["ok", "no_such_bucket", "credentials_refused", "refused", "unreachable"]

    private let last = Mutex<String?>(nil)

    /// A status no check has set yet.
    init() {}

    /// Keeps `check` as the last outcome.
    func note(_ check: BucketCheck) {
        last.withLock { $0 = check.name }
    }

    /// The last outcome's name, nil before any check.
    var lastOutcome: String? { last.withLock { $0 } }

    /// Registers the gauge.
    func register(_ metrics: ServerMetrics) {
        metrics.register(
            name: "presignd_storage_bucket_check",
            help:
                "1 for the outcome of the last signed HEAD of s3.bucket (at start unless s3.startupCheck is off, then each /readyz), 0 for the others.",
            label: "outcome"
        ) { [self] in
            let current = lastOutcome
            return Self.outcomes.map { ($0, $0 == current ? 1 : 0) }
        }
    }
}
