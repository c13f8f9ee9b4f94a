import Config
import JSON
import ObjectStore
import System

#if canImport(Glibc)
    import Glibc
#endif

/// What a running server really listens on, written to `server.listenInfoPath` once its listeners
/// are bound, so that `presignd healthcheck` probes that port even when the server was started with
/// flags the check does not see (`docker run presignd --port 18323`) or with port 0.
///
/// The file is one JSON object, `{"pid":1,"host":"0.0.0.0","port":18323,"metricsPort":0,"tls":false}`,
/// written to a temporary name and renamed (a reader never sees half of it), removed at a clean stop.
public struct ListenInfo: Sendable, Equatable {
    /// The server's process id (a file whose process is gone is stale).
    public var pid: Int32
    /// The configured listen address (`0.0.0.0`, `::`, or one address).
    public var host: String
    /// The bound main port.
    public var port: Int
    /// The bound operations port (`server.metricsPort`), 0 when none.
    public var metricsPort: Int
    /// Whether the main port speaks TLS.
    public var tls: Bool

    /// Information from its parts.
    public init(pid: Int32, host: String, port: Int, metricsPort: Int, tls: Bool) {
        self.pid = pid
        self.host = host
        self.port = port
        self.metricsPort = metricsPort
        self.tls = tls
    }

    /// The file's JSON text.
    public var json: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("pid")
        writer.int(Int(pid))
        writer.key("host")
        writer.string(host)
        writer.key("port")
        writer.int(port)
        writer.key("metricsPort")
        writer.int(metricsPort)
        writer.key("tls")
        writer.bool(tls)
        writer.endObject()
        return writer.bytes + [0x0A]
    }

    /// The information in a file's bytes, or nil when they are not such an object.
    public init?(parsing bytes: [UInt8]) {
        guard let value = try? JSONValue(parsing: bytes), let pid = value["pid"]?.int64Value,
            let host = value["host"]?.stringValue, let port = value["port"]?.intValue, (1...65535).contains(port),
            let metricsPort = value["metricsPort"]?.intValue, (0...65535).contains(metricsPort),
            let tls = value["tls"]?.boolValue, let pid32 = Int32(exactly: pid)
        else { return nil }
        self.init(pid: pid32, host: host, port: port, metricsPort: metricsPort, tls: tls)
    }

    /// The server this describes, as `HealthCheck` probes it: the configuration's server section with
    /// the bound ports.
    public func applied(to server: ServerConfig) -> ServerConfig {
        var server = server
        server.host = host
        server.port = port
        server.metricsPort = metricsPort
        return server
    }

    /// Writes the file at `path` (a temporary file beside it, then `rename`); the reason when it
    /// could not be written.
    public func write(to path: String) -> String? {
        let temporary = path + ".\(pid).tmp"
        let bytes = json
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot create \(temporary): \(String(cString: strerror(errno)))" }
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                let reason = String(cString: strerror(errno))
                close(fd)
                unlink(temporary)
                return "cannot write \(temporary): \(reason)"
            }
            written += n
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            return "cannot rename \(temporary) to \(path): \(reason)"
        }
        return nil
    }

    /// The file at `path` when it names a process that is still running; nil otherwise.
    public static func read(from path: String) -> ListenInfo? {
        guard let bytes = try? FileReader.readAll(atPath: path, limit: 4096), let info = ListenInfo(parsing: bytes)
        else { return nil }
        // kill(pid, 0): EPERM still means the process exists (another user's).
        guard info.pid > 0, kill(info.pid, 0) == 0 || errno == EPERM else { return nil }
        return info
    }

    /// Removes the file at `path` if it is this process's (a clean stop).
    public static func remove(at path: String, pid: Int32) {
        guard read(from: path)?.pid == pid else { return }
        unlink(path)
    }
}
