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
        var variables = ServerProcess.baseEnvironment
        for (name, value) in environment { variables[name] = value }
        let config: PresigndConfig
        switch ConfigLoader.load(arguments: arguments, environment: variables) {
        case .success(.run(let loaded)): config = loaded
        case .success(let other): throw TestFailure("\(arguments) is not a command line that serves: \(other)")
        case .failure(let error): throw error
        }
        try self.init(config: config, variables: variables, nowMillis: nowMillis, start: start)
    }

    /// The application of `config`; `variables` are the process environment its credential providers
    /// read (`AWS_*`, `HOME`).
    public init(
        config: PresigndConfig, variables: [String: String] = [:], nowMillis: (@Sendable () -> Int64)? = nil,
        start: Bool = true
    ) throws {
        self.config = config
        log = LogFile(minimumLevel: LogLevel(rawValue: config.log.level) ?? .info)
        let env = AppEnvironment(
            nowMillis: nowMillis ?? { WallClock.epochMilliseconds() }, newUUID: { UUID().uuidString.lowercased() },
            variables: variables)
        let core = try AppCore(config: config, env: env, log: log.sink)
        self.core = core
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
