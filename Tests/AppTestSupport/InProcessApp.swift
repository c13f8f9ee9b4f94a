import App
import Config
import Foundation
import HTTPServer
import Logging
import Synchronization
import System
import TestSupport

/// The application in the test's process, as `presignd` assembles it but without a listener: the same
/// configuration (`ConfigLoader` over the same environment and flags), the same `AppCore` (router,
/// gate, presenters, front doors, lifecycle, store, intent writer, janitors, metrics), with its log in a
/// file and its requests carried by an `InMemoryClient` whose worker pool is sized as the server's
/// (`server.workerThreads`, `server.workerQueueLimit`). Its storage and records stores are the real ones
/// the configuration names (RGW, a SQLite file, PostgreSQL).
///
/// A test that needs a process boundary (signals, exit codes, kill -9, several instances, the real
/// socket) starts the binary instead (`ServerProcess`); both are `HTTPTarget`s.
public final class InProcessApp: HTTPTarget, Sendable {
    /// The configuration the application was built from.
    public let config: PresigndConfig
    /// The application.
    public let core: AppCore
    /// Its log (what the binary writes to standard error, less the access log and the serve loop's lines).
    public let log: LogFile
    /// The client of the main router (the API and the operator's routes).
    public let client: InMemoryClient
    /// The client of the operations router, when `server.metricsPort` is set.
    public let opsClient: InMemoryClient?
    /// The worker pools of the two clients.
    private let pools: [WorkerPool]
    /// Whether `stop()` ran.
    private let stopped = Atomic<Bool>(false)

    /// The application `presignd` would serve with `environment` (added to `ServerProcess.baseEnvironment`,
    /// as the binary's tests start it) and `arguments`; `nowMillis` replaces the wall clock when given.
    /// Its janitors and refreshers run (`AppCore.start()`) unless `start` is false. Throws the
    /// configuration's problems (`ConfigError`) or the start's failure (`AppError`).
    public convenience init(
        environment: [String: String], arguments: [String] = [], nowMillis: (@Sendable () -> Int64)? = nil,
        start: Bool = true
    ) throws {
        let (config, variables) = try Self.configuration(environment: environment, arguments: arguments)
        try self.init(config: config, variables: variables, nowMillis: nowMillis, start: start)
    }

    /// The same application, built on a thread of its own: the start asks the credential chain,
    /// checks the bucket and opens and migrates the store, which block, and an async test must not hold
    /// a thread of the cooperative pool meanwhile.
    public convenience init(
        environment: [String: String], arguments: [String] = [], nowMillis: (@Sendable () -> Int64)? = nil,
        start: Bool = true
    ) async throws {
        let (config, variables) = try Self.configuration(environment: environment, arguments: arguments)
        let log = LogFile(minimumLevel: LogLevel(rawValue: config.log.level) ?? .info)
        let env = Self.environment(variables: variables, nowMillis: nowMillis)
        let core = try await onThread { [sink = log.sink] in try AppCore(config: config, env: env, log: sink) }
        self.init(config: config, core: core, log: log, start: start)
    }

    /// The application of `config`; `variables` are the process environment its credential providers
    /// read (`AWS_*`, `HOME`).
    public convenience init(
        config: PresigndConfig, variables: [String: String] = [:], nowMillis: (@Sendable () -> Int64)? = nil,
        start: Bool = true
    ) throws {
        let log = LogFile(minimumLevel: LogLevel(rawValue: config.log.level) ?? .info)
        let core = try AppCore(
            config: config, env: Self.environment(variables: variables, nowMillis: nowMillis), log: log.sink)
        self.init(config: config, core: core, log: log, start: start)
    }

    /// The clients of `core`, whose log is `log`.
    private init(config: PresigndConfig, core: AppCore, log: LogFile, start: Bool) {
        self.config = config
        self.core = core
        self.log = log
        let pool = WorkerPool(
            threads: config.server.workerThreads, maxQueued: config.server.workerQueueLimit, name: "memory-work")
        pool.registerMetrics(in: core.metrics)
        client = InMemoryClient(
            router: core.router, options: core.serverOptions, metrics: core.metrics, blocking: .pool(pool))
        var pools = [pool]
        if let opsRouter = core.opsRouter {
            // The operations listener's own pool of one worker; its requests are not counted in `/metrics`.
            let opsPool = WorkerPool(threads: 1, name: "memory-ops")
            pools.append(opsPool)
            opsClient = InMemoryClient(router: opsRouter, options: core.serverOptions, blocking: .pool(opsPool))
        } else {
            opsClient = nil
        }
        self.pools = pools
        if start { core.start() }
    }

    /// The configuration `presignd` loads from `environment` over the base one, and `arguments`; with
    /// the variables it read.
    private static func configuration(environment: [String: String], arguments: [String]) throws -> (
        PresigndConfig, [String: String]
    ) {
        var variables = ServerProcess.baseEnvironment
        for (name, value) in environment { variables[name] = value }
        switch ConfigLoader.load(arguments: arguments, environment: variables) {
        case .success(.run(let config)): return (config, variables)
        case .success(let other): throw TestFailure("\(arguments) is not a command line that serves: \(other)")
        case .failure(let error): throw error
        }
    }

    /// The application's clock (the wall clock unless `nowMillis`), its ids and the process environment.
    private static func environment(variables: [String: String], nowMillis: (@Sendable () -> Int64)?)
        -> AppEnvironment
    {
        AppEnvironment(
            nowMillis: nowMillis ?? { WallClock.epochMilliseconds() }, newUUID: { UUID().uuidString.lowercased() },
            variables: variables)
    }

    /// A clock that stays at the moment it was made, for tests of limits that refill with time (token
    /// buckets): a loaded machine's slowness between two requests gives no token back.
    public static func frozenClock() -> @Sendable () -> Int64 {
        let now = WallClock.epochMilliseconds()
        return { now }
    }

    /// Sends `request` to the main router.
    public func exchange(_ request: [UInt8]) async throws -> WireResponse { try await client.exchange(request) }

    /// Sends `request` to the main router; the response and how long the application took to answer.
    public func timedExchange(_ request: [UInt8]) async throws -> InMemoryClient.Timed {
        try await client.timedExchange(request)
    }

    /// `timedExchange` of one `RawClient.request(...)`.
    public func timedExchange(
        _ method: String, _ target: String, headers: String = "", body: String? = nil
    ) async throws -> InMemoryClient.Timed {
        try await client.timedExchange(Array(RawClient.request(method, target, headers: headers, body: body).utf8))
    }

    /// Stops the application's threads and the workers (once; blocks until they end).
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for pool in pools { pool.shutdown() }
        core.stop()
    }

    deinit { stop() }
}
