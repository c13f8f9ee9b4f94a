import System

/// Runs a pass of background work every interval, only while this process holds the work's lease
/// (`LeaseStore`), so that across instances one pass runs at a time. A keeper thread acquires the lease
/// and renews it every third of its time to live; the moment a renewal fails (taken over, released, run
/// out) the running pass is marked lost, and its fenced writes are refused by the store anyway.
public final class LeasedRunner: @unchecked Sendable {
    /// What the runner did (for logs and tests).
    public enum Event: Sendable, Equatable {
        /// The lease became this process's (`tookOver`: from another holder whose lease ran out).
        case acquired(Lease, tookOver: Bool)
        /// The lease was lost while held (the pass in progress was told to stop).
        case lost(Lease)
        /// A pass finished.
        case passFinished(Lease)
        /// A store call failed (retried at the next tick).
        case storeFailed(String)
    }

    /// The runner's settings.
    public struct Options: Sendable {
        /// The work's name (the lease row).
        public var name: String
        /// This process's id (one per instance).
        public var holder: String
        /// How long a lease lasts without renewal (ms): another instance takes over this long after a
        /// crash.
        public var ttlMs: Int64
        /// Pause between passes (ms).
        public var intervalMs: Int
        /// The nice value of the thread that runs the passes (0 to 19; the keeper stays at 0, so a busy
        /// CPU never costs the lease its renewals).
        public var workerNice: Int32

        /// Options; renewals happen every `ttlMs / 3`.
        public init(name: String, holder: String, ttlMs: Int64, intervalMs: Int, workerNice: Int32 = 0) {
            self.name = name
            self.holder = holder
            self.ttlMs = ttlMs
            self.intervalMs = intervalMs
            self.workerNice = min(19, max(0, workerNice))
        }
    }

    /// The shared state of the two threads.
    private struct State {
        var stopping = false
        /// The pass of the lease held now (nil: not held).
        var current: LeasePass?
    }

    private let store: any LeaseStore
    private let options: Options
    private let now: @Sendable () -> Int64
    private let pass: @Sendable (LeasePass) -> Void
    private let events: @Sendable (Event) -> Void
    private let monitor = Monitor(State())
    private var threads: [PThread] = []

    /// A runner of `pass` under `options.name`; `now` is the clock (epoch ms), `events` hears what happens.
    public init(
        store: any LeaseStore, options: Options, now: @escaping @Sendable () -> Int64,
        events: @escaping @Sendable (Event) -> Void = { _ in }, pass: @escaping @Sendable (LeasePass) -> Void
    ) {
        self.store = store
        self.options = options
        self.now = now
        self.events = events
        self.pass = pass
    }

    /// Starts the keeper and the worker threads.
    public func start() {
        threads = [
            PThread(name: "presignd-lease") { [self] in keep() },
            PThread(name: "presignd-leased") { [self] in work() },
        ]
    }

    /// Stops both threads (a pass in progress is told to stop: it finishes the item in hand and writes its
    /// outcome under the lease, which is still held), waits for them, and gives the lease up.
    public func stop() {
        let held = monitor.withLock { state -> LeasePass? in
            state.stopping = true
            return state.current
        }
        held?.markStopping()
        monitor.broadcast()
        for thread in threads { thread.join() }
        threads = []
        if let held { _ = try? store.releaseLease(held.lease, nowMs: now()) }
    }

    /// The keeper: acquire while not held, renew while held; every `ttlMs / 3`.
    private func keep() {
        let tick = max(1, Int(options.ttlMs / 3))
        while true {
            let (stopping, current) = monitor.withLock { state -> (Bool, LeasePass?) in (state.stopping, state.current)
            }
            if stopping { return }
            if let current {
                renew(current)
            } else {
                acquire()
            }
            let stop = monitor.withLock { (state, waiter) -> Bool in
                if !state.stopping { _ = waiter.wait(millis: tick) }
                return state.stopping
            }
            if stop { return }
        }
    }

    /// Tries to take the lease; on success the worker is woken with a new pass.
    private func acquire() {
        do {
            guard
                case .acquired(let lease, let tookOver) = try store.acquireLease(
                    name: options.name, holder: options.holder, nowMs: now(), ttlMs: options.ttlMs)
            else { return }
            let pass = LeasePass(lease: lease, store: store, now: now)
            monitor.withLock { state in state.current = pass }
            monitor.broadcast()
            events(.acquired(lease, tookOver: tookOver))
        } catch {
            events(.storeFailed("\(error)"))
        }
    }

    /// Renews the held lease; a refusal, or a failure past its end, loses it.
    private func renew(_ current: LeasePass) {
        do {
            if let renewed = try store.renewLease(current.lease, nowMs: now(), ttlMs: options.ttlMs) {
                current.renewed(until: renewed.expiresAtMs)
                return
            }
        } catch {
            events(.storeFailed("\(error)"))
            if !current.isLost { return }
        }
        current.markLost()
        monitor.withLock { state in if state.current === current { state.current = nil } }
        monitor.broadcast()
        events(.lost(current.lease))
    }

    /// The worker: a pass whenever the lease is held and the interval has passed.
    private func work() {
        if options.workerNice > 0 { PThread.setNice(options.workerNice) }
        while true {
            let next = monitor.withLock { (state, waiter) -> LeasePass? in
                while !state.stopping && state.current == nil { waiter.wait() }
                return state.stopping ? nil : state.current
            }
            guard let next else { return }
            if !next.isLost {
                pass(next)
                events(.passFinished(next.lease))
            }
            let stop = monitor.withLock { (state, waiter) -> Bool in
                if !state.stopping { _ = waiter.wait(millis: options.intervalMs) }
                return state.stopping
            }
            if stop { return }
        }
    }
}
