import CloudCredentials
import Config
import HTTPServer
import Logging
import SigV4
import Synchronization
import System

/// The credentials the server signs with: the chain's first answer, the refresher that renews
/// temporary ones on its own thread, and what `/readyz` and `/metrics` say about them.
///
/// The signers never wait for this: new credentials reach them through `onRotate`
/// (`Application.Signers.rotate(to:)`), which swaps each `RotatingPresigner` whole.
final class AppCredentials: Sendable {
    /// The provider that answered at start, and what it gave.
    let initial: ProvidedCredentials
    /// Renews temporary credentials; nil for credentials that do not expire (nothing to renew).
    let refresher: CredentialsRefresher?
    /// The last refresh failure, for `/readyz` (never a key or token).
    private let lastFailure = LastFailure()
    /// A refresh failure's text, shared with the refresher's event callback.
    private final class LastFailure: Sendable {
        let text = Mutex<String?>(nil)
    }
    /// Epoch seconds.
    private let now: @Sendable () -> Int64

    /// Holds `initial`, from `provider`; with an expiration, a refresher asks `provider` again by
    /// `policy` and hands new credentials to `onRotate`. Refresh outcomes are logged to `log`.
    init(
        provider: any CredentialsProvider, initial: ProvidedCredentials, policy: RefreshPolicy,
        now: @escaping @Sendable () -> Int64, random: @escaping @Sendable (_ upperBound: Int) -> Int,
        onRotate: @escaping @Sendable (Credentials) -> Void, log: LogSink?
    ) {
        self.initial = initial
        self.now = now
        guard initial.credentials.expiration != nil else {
            refresher = nil
            return
        }
        let failure = lastFailure
        refresher = CredentialsRefresher(
            provider: provider, initial: initial, policy: policy, now: now, random: random, onRotate: onRotate,
            onEvent: { event in
                switch event {
                case .refreshed(let provider, let changed, let expiration, let next):
                    failure.text.withLock { $0 = nil }
                    log?.info(
                        "credentials refreshed",
                        [
                            "provider": provider, "changed": changed, "expiration": expiration.map(Int.init) ?? -1,
                            "nextRefresh": next.map(Int.init) ?? -1,
                        ])
                case .refreshFailed(let provider, let error, let failures, let retryAt, let held):
                    failure.text.withLock { $0 = error.description }
                    log?.warn(
                        "credentials refresh failed",
                        [
                            "provider": provider, "error": error.description, "consecutiveFailures": failures,
                            "retryAt": Int(retryAt), "heldExpiration": held.map(Int.init) ?? -1,
                        ])
                case .expired(let provider, let expiration):
                    log?.error(
                        "credentials expired: no URL is issued until a refresh succeeds",
                        ["provider": provider, "expiration": Int(expiration)])
                }
            })
    }

    /// Starts the refresh thread (never an event loop); nothing to do for long-term keys.
    func start() { refresher?.start() }

    /// Stops the refresh thread and waits for it.
    func stop() { refresher?.stop() }

    /// The credentials held now with their provenance (expired ones too).
    var held: ProvidedCredentials { refresher?.held ?? initial }

    /// True while unexpired credentials are held.
    var hasValidCredentials: Bool { !held.credentials.isExpired(at: now()) }

    /// The `credentials` check of `/readyz`: fails once the held credentials have expired.
    func readinessCheck() -> ReadinessCheck {
        let held = self.held
        guard let expiration = held.credentials.expiration, held.credentials.isExpired(at: now()) else {
            return .ok(Self.checkName)
        }
        var text = "the credentials from \(held.provider) expired at \(Timestamp.iso8601Millis(expiration * 1000))"
        if let failure = lastFailure.text.withLock({ $0 }) { text += "; last refresh: \(failure)" }
        return .failed(Self.checkName, text)
    }

    /// The name of the readiness check.
    static let checkName = "credentials"

    /// The credential gauges and counters; `refusals` counts URLs refused for want of credential life.
    func registerMetrics(_ metrics: ServerMetrics, refusals: @escaping @Sendable () -> Int) {
        metrics.register(
            name: "presignd_credentials_valid", help: "1 while unexpired storage credentials are held, else 0."
        ) { [self] in hasValidCredentials ? 1 : 0 }
        metrics.register(
            name: "presignd_credentials_expiration_timestamp_seconds",
            help: "When the held storage credentials expire (epoch seconds); 0 for keys that do not expire."
        ) { [self] in held.credentials.expiration.map(Int.init) ?? 0 }
        metrics.register(
            name: "presignd_credentials_refreshes_total", help: "Successful refreshes of temporary credentials."
        ) { [self] in refresher?.refreshCount ?? 0 }
        metrics.register(
            name: "presignd_credentials_refresh_failures_total",
            help: "Failed refreshes of temporary credentials (the held ones stay in use until they expire)."
        ) { [self] in refresher?.failureCount ?? 0 }
        metrics.register(
            name: "presignd_credentials_refused_urls_total",
            help: "URLs refused (503) because the credentials had less than s3.minimumUrlLifetimeSeconds left."
        ) { refusals() }
    }
}
