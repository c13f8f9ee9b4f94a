import App
import CLinux
import Config
import Crypto
import HTTPServer
import System

#if canImport(Glibc)
    import Glibc
#endif

// presignd: parse options and configuration, build the application, serve until SIGTERM/SIGINT,
// drain, exit 0. Exit 2 on configuration problems, 1 when a part cannot start. `presignd explain`
// exits 0 (no difference), 1 (differences) or 2 (usage, configuration).

let log = LogSink(fd: 2)
var environment: [String: String] = [:]
var envp = environ
while let entry = envp.pointee {
    let s = String(cString: entry)
    if let eq = s.firstIndex(of: "=") { environment[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
    envp += 1
}

let action: CommandLineAction
switch ConfigLoader.load(arguments: Array(CommandLine.arguments.dropFirst()), environment: environment) {
case .success(let a): action = a
case .failure(let error):
    for p in error.problems { log.writeLine("presignd: configuration: \(p)") }
    // A health check that cannot read the configuration reports "unhealthy" (1): Docker reserves 2.
    exit(CommandLine.arguments.dropFirst().first == "healthcheck" ? 1 : 2)
}

let config: PresigndConfig
switch action {
case .version:
    print("presignd \(ConfigLoader.version)")
    exit(0)
case .help(let text):
    print(text)
    exit(0)
case .checkConfig(let c):
    print(c.redactedJSON())
    for note in c.notes { log.writeLine("presignd: note: \(note)") }
    exit(0)
case .healthcheck(let c, let addressFromFlags):
    let outcome = HealthCheck.run(config: c, useListenInfo: !addressFromFlags)
    print(outcome.detail)
    exit(outcome.healthy ? 0 : 1)
case .explain(let c, let arguments):
    let outcome = ExplainCommand.run(
        config: c, arguments: arguments, nowSeconds: WallClock.epochMilliseconds() / 1000,
        environment: environment)
    print(outcome.output)
    exit(outcome.status)
case .token(let c, let arguments):
    let outcome = TokenCommand.run(config: c, arguments: arguments, nowSeconds: WallClock.epochMilliseconds() / 1000)
    for note in outcome.notes { log.writeLine("presignd: note: \(note)") }
    if outcome.status == 0 { print(outcome.output) } else { log.writeLine(outcome.output) }
    exit(outcome.status)
case .run(let c):
    config = c
}

// Signals are handled by sigwait on this thread: block them before any other thread starts.
_ = presignd_block_signals(SIGTERM, SIGINT, SIGHUP)
signal(SIGPIPE, SIG_IGN)

let uuidPool = RandomPool()
let env = AppEnvironment(
    nowMillis: { WallClock.epochMilliseconds() },
    newUUID: {
        if let u = try? uuidPool.uuid() { return u }
        // OpenSSL's generator failed: fall back to the system's (getrandom), never to a fixed value.
        var g = SystemRandomNumberGenerator()
        return UUIDv4.format(randomBytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &g) })
    }, variables: environment)

let app: Application
do {
    app = try Application(config: config, env: env, log: log)
} catch {
    log.error("cannot start", ["error": "\(error)"])
    exit(error.exitCode)
}
app.start()
// What the server really listens on, for `presignd healthcheck` (the container image sets the path),
// before the `listening` line, so whoever waits for that line finds the file.
if let path = config.server.listenInfoPath {
    let info = ListenInfo(
        pid: getpid(), host: config.server.host, port: app.server.port,
        metricsPort: app.metricsServer?.port ?? 0, tls: config.tls.enabled)
    if let problem = info.write(to: path) {
        log.warn("listen info not written", ["path": path, "error": problem])
    }
}
log.info(
    "listening",
    ["host": config.server.host, "port": app.server.port, "tls": config.tls.enabled, "version": ConfigLoader.version])
// The loops' count and what decided it (configured, affinity mask, cgroup quota or online CPUs).
log.info("event loops", ["count": app.server.eventLoopCount, "source": app.server.eventLoopCountSource.rawValue])
for note in config.notes { log.info("note", ["detail": note]) }
if config.auth.mode == .none {
    log.warn("auth.mode is none: every request is served as the default user")
}

while true {
    let sig = presignd_wait_signals(SIGTERM, SIGINT, SIGHUP)
    if sig == SIGHUP {
        if config.tls.enabled {
            if let problem = app.reloadTLS() {
                log.error("TLS reload failed; the previous certificate stays", ["error": problem])
            } else {
                log.info("TLS certificate reloaded")
            }
        }
        continue
    }
    log.info("draining", ["signal": sig])
    if let path = config.server.listenInfoPath { ListenInfo.remove(at: path, pid: getpid()) }
    app.stop()
    log.info("stopped")
    exit(0)
}
