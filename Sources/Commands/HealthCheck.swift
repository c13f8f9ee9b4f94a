import App
import Config
import HTTPClient

/// `presignd healthcheck`: one GET of `/healthz` on loopback, for a container's `HEALTHCHECK` (no curl
/// in the image).
///
/// The address is the configured listener's with a wildcard host (`0.0.0.0`, `::`) replaced by
/// 127.0.0.1 (a dual-stack `::` listener accepts it too); the operations listener (`server.metricsPort`) is preferred when
/// set, since it is always plain HTTP. A TLS-only server without one is reported, not probed: the
/// check cannot verify a certificate issued for a public name on a loopback address. When
/// `server.listenInfoPath` names the file a running server wrote (`ListenInfo`), its bound ports
/// and host are probed instead of the configured ones (flags passed to the server after the image
/// name are not the check's), unless the check itself was given `--host` or `--port`.
public enum HealthCheck {
    /// The outcome: healthy or not, with a one-line reason for the container's health log.
    public struct Outcome: Sendable, Equatable {
        /// `/healthz` answered 200.
        public var healthy: Bool
        /// What was asked and what came back.
        public var detail: String
    }

    /// The loopback address and port the check probes for `server`, or nil when only TLS listens.
    public static func address(server: ServerConfig, tlsEnabled: Bool) -> ServerAddress? {
        let host: String
        switch server.host {
        case "", "0.0.0.0", "::", "[::]": host = "127.0.0.1"
        default: host = server.host
        }
        if server.metricsPort != 0 { return ServerAddress(usesTLS: false, host: host, port: server.metricsPort) }
        if tlsEnabled { return nil }
        return ServerAddress(usesTLS: false, host: host, port: server.port)
    }

    /// Probes the server `config` describes, waiting at most `timeoutMs`: the one that wrote
    /// `server.listenInfoPath` when that file is there and `useListenInfo`, else the configured one.
    public static func run(config: PresigndConfig, useListenInfo: Bool = true, timeoutMs: Int = 3000) -> Outcome {
        var server = config.server
        var tlsEnabled = config.tls.enabled
        if useListenInfo, let path = config.server.listenInfoPath, let info = ListenInfo.read(from: path) {
            server = info.applied(to: server)
            tlsEnabled = info.tls
        }
        let probed = server.metricsPort != 0 ? server.metricsPort : server.port
        guard (1...65535).contains(probed) else {
            return Outcome(
                healthy: false,
                detail: "server.port is 0 (the system picks the port): nothing to probe without the file "
                    + "server.listenInfoPath names")
        }
        guard let address = address(server: server, tlsEnabled: tlsEnabled) else {
            return Outcome(
                healthy: false,
                detail: "tls.enabled without server.metricsPort: set a metrics port for the plain health listener")
        }
        let client = HTTPClient(
            options: HTTPClientOptions(requestTimeoutMs: timeoutMs, connectTimeoutMs: timeoutMs, maxIdleConnections: 0))
        do {
            let response = try client.send(HTTPRequest(method: "GET", target: "/healthz"), to: address)
            return Outcome(
                healthy: response.status == 200, detail: "GET \(address)/healthz: HTTP \(response.status)")
        } catch {
            return Outcome(healthy: false, detail: "GET \(address)/healthz: \(error)")
        }
    }
}
