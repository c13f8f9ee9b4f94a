import SigV4
import Synchronization

/// Holds the credentials in use and renews temporary ones well before they expire.
///
/// `current()` is the signing path's read: a `Mutex` held only to copy the value. Refreshes run
/// on a background thread (`start()`), or wherever `refreshIfDue()` is called (tests drive it
/// with an injected clock); they block on the provider and never overlap. When a refresh fails the
/// credentials held stay in use until they really expire (a `refreshFailed` warning each time, and
/// `failureCount` for a metric), and the refresher keeps trying with backoff; expired credentials
/// are never handed out. New credentials reach `onRotate` before `current()` returns them, so the
/// signers (`RotatingPresigner.rotate(to:)`) switch first; callbacks never overlap.
public final class CredentialsRefresher: Sendable {
    /// The provider asked on each refresh: the one the chain chose.
    public let provider: any CredentialsProvider
    /// When to refresh.
    public let policy: RefreshPolicy
    /// Wall-clock epoch seconds.
    private let now: @Sendable () -> Int64
    /// A random integer in `0...upperBound`.
    private let random: @Sendable (_ upperBound: Int) -> Int
    /// Receives new credentials (not called when a refresh returns the same ones).
    private let onRotate: @Sendable (Credentials) -> Void
    /// Receives every refresh outcome.
    private let onEvent: @Sendable (RefreshEvent) -> Void
    /// The credentials and the schedule.
    private let state: Mutex<State>
    /// The background thread, while started.
    private let thread = Mutex<RefreshThread?>(nil)

    /// What the refresher knows.
    private struct State {
        /// The credentials held (expired ones included, until replaced).
        var held: ProvidedCredentials?
        /// What `current()` returns: `held`, published once `onRotate` has seen it.
        var published: ProvidedCredentials?
        /// When to refresh next (epoch seconds); nil: never.
        var nextRefresh: Int64?
        /// Failures since the last success.
        var consecutiveFailures = 0
        /// Failures in all.
        var failures = 0
        /// Successful refreshes in all.
        var refreshes = 0
        /// True while a refresh runs.
        var refreshing = false
        /// True once the expiry of `held` has been reported.
        var expiryReported = false
    }

    /// A refresher for `provider` starting with `initial` (from the chain's resolution); with nil
    /// (the provider failed at start) the first refresh is due at once. Callbacks run on the
    /// refreshing thread and must not call `refreshIfDue()`.
    public init(
        provider: any CredentialsProvider, initial: ProvidedCredentials?, policy: RefreshPolicy = RefreshPolicy(),
        now: @escaping @Sendable () -> Int64, random: @escaping @Sendable (_ upperBound: Int) -> Int,
        onRotate: @escaping @Sendable (Credentials) -> Void = { _ in },
        onEvent: @escaping @Sendable (RefreshEvent) -> Void = { _ in }
    ) {
        self.provider = provider
        self.policy = policy
        self.now = now
        self.random = random
        self.onRotate = onRotate
        self.onEvent = onEvent
        let start = now()
        var state = State(held: initial, published: initial)
        if let initial {
            state.nextRefresh = policy.nextRefresh(
                expiration: initial.credentials.expiration, now: start, random: random)
        } else {
            state.nextRefresh = start
        }
        self.state = Mutex(state)
    }

    deinit { stop() }

    /// The credentials to sign with, or nil when none are held or they have expired.
    public func current() -> Credentials? {
        let held = state.withLock { $0.published?.credentials }
        guard let held, !held.isExpired(at: now()) else { return nil }
        return held
    }

    /// The credentials held with their provenance (expired ones too), for logs and `/readyz` details.
    public var held: ProvidedCredentials? { state.withLock { $0.published } }

    /// True when unexpired credentials are held: the `/readyz` check.
    public var hasValidCredentials: Bool { current() != nil }

    /// Failed refreshes so far (a counter metric).
    public var failureCount: Int { state.withLock { $0.failures } }

    /// Successful refreshes so far, the initial credentials not counted.
    public var refreshCount: Int { state.withLock { $0.refreshes } }

    /// When the next refresh is due (epoch seconds); nil: never.
    public var nextRefresh: Int64? { state.withLock { $0.nextRefresh } }

    /// Refreshes when one is due by the clock; returns whether it tried. Blocking.
    @discardableResult
    public func refreshIfDue() -> Bool {
        let at = now()
        guard let next = state.withLock({ $0.nextRefresh }), next <= at else { return false }
        return refresh()
    }

    /// Refreshes now, whatever the schedule; false when another refresh is running. Blocking.
    @discardableResult
    public func refresh() -> Bool {
        let claimed = state.withLock { state -> Bool in
            guard !state.refreshing else { return false }
            state.refreshing = true
            return true
        }
        guard claimed else { return false }
        let outcome: Result<ProvidedCredentials, CredentialsError>
        do {
            outcome = .success(try provider.fetch())
        } catch {
            outcome = .failure(error)
        }
        let at = now()
        var events: [RefreshEvent] = []
        var rotated: ProvidedCredentials?
        state.withLock { state in
            switch outcome {
            case .success(let provided):
                let changed = !Self.same(state.held?.credentials, provided.credentials)
                state.held = provided
                state.consecutiveFailures = 0
                state.refreshes += 1
                state.expiryReported = false
                state.nextRefresh = policy.nextRefresh(
                    expiration: provided.credentials.expiration, now: at, random: random)
                if changed { rotated = provided } else { state.published = provided }
                events.append(
                    .refreshed(
                        provider: provided.provider, changed: changed, expiration: provided.credentials.expiration,
                        nextRefresh: state.nextRefresh))
            case .failure(let error):
                state.consecutiveFailures += 1
                state.failures += 1
                let retryAt = policy.nextRetry(failures: state.consecutiveFailures, now: at, random: random)
                state.nextRefresh = retryAt
                let expiration = state.held?.credentials.expiration
                events.append(
                    .refreshFailed(
                        provider: provider.name, error: error, consecutiveFailures: state.consecutiveFailures,
                        retryAt: retryAt, heldExpiration: expiration))
                if let expiration, at >= expiration, !state.expiryReported {
                    state.expiryReported = true
                    events.append(.expired(provider: provider.name, expiration: expiration))
                }
            }
        }
        if let rotated {
            onRotate(rotated.credentials)
            state.withLock { $0.published = rotated }
        }
        for event in events { onEvent(event) }
        state.withLock { $0.refreshing = false }
        return true
    }

    /// Starts the background thread that refreshes when due (it wakes at least once a minute, so a
    /// jump of the wall clock is noticed). Calling it twice is a programmer mistake.
    public func start() {
        thread.withLock { thread in
            precondition(thread == nil, "CredentialsRefresher.start called twice")
            // The thread holds the refresher only while it computes or refreshes, never while it
            // waits, so dropping the last reference ends it.
            thread = RefreshThread(name: "presignd-creds") { [weak self] waiter in
                while true {
                    guard let waitMs = self?.millisecondsUntilDue() else { return }
                    if waitMs > 0 {
                        if waiter.wait(milliseconds: waitMs) { return }
                        continue
                    }
                    if waiter.isStopping { return }
                    self?.refreshIfDue()
                }
            }
        }
    }

    /// Stops the background thread and waits for it (a refresh under way finishes first).
    public func stop() {
        let running = thread.withLock { thread -> RefreshThread? in
            defer { thread = nil }
            return thread
        }
        running?.stopAndJoin()
    }

    /// Milliseconds until the next refresh, 0 when due, at most a minute.
    private func millisecondsUntilDue() -> Int {
        guard let next = state.withLock({ $0.nextRefresh }) else { return 60_000 }
        let seconds = next - now()
        return seconds <= 0 ? 0 : Int(min(seconds, 60)) * 1000
    }

    /// True when both are the same credentials (compared only to skip needless rotations).
    private static func same(_ old: Credentials?, _ new: Credentials) -> Bool {
        guard let old else { return false }
        return old.accessKeyId == new.accessKeyId && old.secretAccessKey == new.secretAccessKey
            && old.sessionToken == new.sessionToken && old.expiration == new.expiration
    }
}
