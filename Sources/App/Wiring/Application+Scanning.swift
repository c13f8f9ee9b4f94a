import HTTPServer
import Records
import System
import Uploads

extension Application {
    /// The scanner's line in `/readyz` (docs/scanning.md): `ok` when clamd answered the last scan or ping,
    /// `down since …: …` when it did not, `unknown (…)` before either (another instance may hold the
    /// scanner's lease). It never makes the server not ready: confirmations of scanned types are still
    /// taken (their records wait `scanning`), and types that do not scan do not depend on clamd at all.
    static func scannerReadiness(_ scanner: ScanRunner) -> ReadinessCheck {
        switch scanner.worker.health {
        case .up: return .ok("scanner")
        case .down(let error, let sinceMs):
            return ReadinessCheck(
                name: "scanner", text: "down since \(ISO8601Timestamp.string(epochMillis: sinceMs)): \(error)",
                passes: true)
        case .unknown:
            let why = scanner.leaseHeld.load(ordering: .relaxed) == 1 ? "no scan yet" : "another instance scans"
            return .unknown("scanner", why)
        }
    }

    /// The scanner's counters and gauges: scans by outcome, bytes streamed to clamd, whether clamd answers,
    /// the lease, and the records waiting (read from the store at scrape time: the queue is shared).
    static func registerScanMetrics(
        _ metrics: ServerMetrics, scanner: ScanRunner, store: any LifecycleStore, env: AppEnvironment
    ) {
        let worker = scanner.worker
        metrics.register(
            name: "presignd_scans_total",
            help: "Malware scans settled or retried by this process, by outcome (clean, found, too_large, error).",
            label: "outcome"
        ) {
            [
                ("clean", worker.clean.load(ordering: .relaxed)),
                ("error", worker.failures.load(ordering: .relaxed)),
                ("found", worker.found.load(ordering: .relaxed)),
                ("too_large", worker.tooLarge.load(ordering: .relaxed)),
            ]
        }
        metrics.register(name: "presignd_scan_bytes_total", help: "Bytes this process streamed to clamd.") {
            worker.bytesScanned.load(ordering: .relaxed)
        }
        metrics.register(
            name: "presignd_scanner_up",
            help: "1 when clamd answered this process's last scan or ping, 0 when it did not, -1 before either."
        ) {
            switch worker.health {
            case .up: 1
            case .down: 0
            case .unknown: -1
            }
        }
        metrics.register(
            name: "presignd_scanner_lease_held", help: "1 while this process holds the scanner's lease (it scans)."
        ) { scanner.leaseHeld.load(ordering: .relaxed) }
        metrics.register(name: "presignd_scan_pending", help: "Records in state scanning (all instances).") {
            (try? store.scanQueueStats().scanning) ?? -1
        }
        metrics.register(
            name: "presignd_scan_oldest_pending_age_seconds",
            help: "Age of the oldest record still scanning (0 when none waits)."
        ) {
            guard let oldest = try? store.scanQueueStats().oldestCreatedAtMs else { return 0 }
            return Int(max(0, env.nowMillis() - oldest) / 1000)
        }
    }
}
