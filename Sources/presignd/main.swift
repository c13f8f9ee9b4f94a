import App
import CLinux
import Commands
import Config
import Crypto
import HTTPServer
import Logging
import System

#if canImport(Glibc)
    import Glibc
#endif

// presignd: parse options and configuration (the other modes are Commands' `ModeDispatch`), build
// the application, serve until SIGTERM/SIGINT, drain, exit 0. Exit 2 on configuration problems, 1 when
// a part cannot start. `presignd explain` exits 0 (no difference), 1 (differences) or 2 (usage,
// configuration).

// Until the configuration (and so `log.level`) is known, messages go out as they are.
let bootLog = LogSink(fd: 2)
var environment: [String: String] = [:]
var envp = environ
while let entry = envp.pointee {
    let s = String(cString: entry)
    if let eq = s.firstIndex(of: "=") { environment[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
    envp += 1
}

let config: PresigndConfig
switch ModeDispatch.dispatch(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: environment, log: bootLog,
    nowSeconds: { WallClock.epochMilliseconds() / 1000 })
{
case .exit(let status): exit(status)
case .serve(let c): config = c
}

// `log.level` (validated by Config: one of LogLevel's names): lines below it are not written, the
// access log's `info` lines included.
let log = LogSink(fd: 2, minimumLevel: LogLevel(rawValue: config.log.level) ?? .info)
log.debug(
    "configuration",
    [
        "authMode": config.auth.mode.rawValue, "s3Endpoint": config.s3.endpoint, "bucket": config.s3.bucket,
        "region": config.s3.region, "accessLog": config.log.accessLog,
    ])

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
    // SIGTERM (an orchestrator's stop): `/readyz` turns 503 at once and everything is still served for
    // `server.drainDelayMs`, so the balancer's health check takes this instance out before the listeners
    // close; a second SIGTERM or a SIGINT ends the pause. SIGINT (a terminal) drains at once.
    let delayMs = sig == SIGTERM ? config.server.drainDelayMs : 0
    log.info("draining", ["signal": sig, "delayMs": delayMs])
    app.beginDrain()
    if delayMs > 0 { _ = presignd_wait_signals_timeout(SIGTERM, SIGINT, 0, delayMs) }
    if let path = config.server.listenInfoPath { ListenInfo.remove(at: path, pid: getpid()) }
    app.stop()
    log.info("stopped")
    exit(0)
}
