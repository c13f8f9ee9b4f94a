import Records
import Synchronization

/// Runs the malware scanner (`ScanWorker`) in one process at a time: a `LeasedRunner` on the lease row
/// `scanner` (holder: this process's id) runs a pass every `intervalMs` while it holds it, each pass
/// settling through the lease's fence. Started and stopped by the application when some type scans.
public final class ScanRunner: @unchecked Sendable {
    /// The name of the scanner's lease row.
    public static let leaseName = "scanner"

    /// The scanner itself (its counters and health feed `/metrics` and `/readyz`).
    public let worker: ScanWorker
    private let store: any LifecycleStore
    private let intervalMs: Int
    private let leaseTtlMs: Int64
    private let env: UploadEnvironment
    /// This process's id in the lease row.
    public let holder: String
    /// 1 while this process holds the scanner's lease (`presignd_scanner_lease_held`).
    public let leaseHeld = Atomic<Int>(0)
    private var runner: LeasedRunner?

    /// A runner of `worker` over `store`'s leases.
    public init(
        worker: ScanWorker, store: any LifecycleStore, intervalMs: Int, leaseTtlMs: Int64, env: UploadEnvironment,
        holder: String? = nil
    ) {
        self.worker = worker
        self.store = store
        self.intervalMs = intervalMs
        self.leaseTtlMs = leaseTtlMs
        self.env = env
        self.holder = holder ?? "scanner-" + env.newUUID()
    }

    /// Starts the lease's keeper and the scanning thread.
    public func start() {
        let runner = LeasedRunner(
            store: store,
            options: .init(
                name: Self.leaseName, holder: holder, ttlMs: leaseTtlMs, intervalMs: intervalMs, workerNice: 10),
            now: env.nowMillis,
            events: { [self] event in
                switch event {
                case .acquired: self.leaseHeld.store(1, ordering: .relaxed)
                case .lost: self.leaseHeld.store(0, ordering: .relaxed)
                case .passFinished, .storeFailed: break
                }
            }
        ) { [worker] pass in
            let fence = PassFence.lease(pass)
            // Pass after pass while records are settled; the runner's interval only when idle.
            while fence.holds && worker.pass(fence) > 0 {}
        }
        self.runner = runner
        runner.start()
    }

    /// Stops scanning (a scan in progress finishes its current call) and gives the lease up.
    public func stop() {
        guard let running = runner else { return }
        running.stop()
        runner = nil
        leaseHeld.store(0, ordering: .relaxed)
    }
}
