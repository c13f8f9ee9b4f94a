import Foundation
import PresignClient
import TestSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real services, from the environment scripts/test.sh exports (the tests fail, not skip, without them).
enum E2E {
    struct S3: Sendable {
        let endpoint: String
        let accessKey: String
        let secretKey: String
        let bucket: String
        let region: String
        var port: Int { Int(endpoint.split(separator: ":").last ?? "80") ?? 80 }
    }

    static func s3() throws -> S3 {
        let e = ProcessInfo.processInfo.environment
        guard let endpoint = e["PRESIGN_TEST_S3_ENDPOINT"], let ak = e["PRESIGN_TEST_S3_ACCESS_KEY"],
            let sk = e["PRESIGN_TEST_S3_SECRET_KEY"]
        else {
            throw TestFailure(
                "PRESIGN_TEST_S3_* are not set: run the suite with scripts/test.sh, which starts Ceph RGW")
        }
        return S3(
            endpoint: endpoint, accessKey: ak, secretKey: sk, bucket: e["PRESIGN_TEST_S3_BUCKET"] ?? "uploads",
            region: e["PRESIGN_TEST_S3_REGION"] ?? "us-east-1")
    }

    /// The real server, signing for RGW and writing `publicPort` (a proxy in front of RGW) into the URLs.
    static func server(_ s3: S3, publicPort: Int?, extra: [String: String] = [:]) throws -> (ServerProcess, String) {
        let dir = Temporary.directory("presign-client-test")
        var env: [String: String] = [
            "PRESIGN_RECORDS_URL": "sqlite:\(dir)/presignd.sqlite3",
            "PRESIGN_S3_ACCESS_KEY_ID": s3.accessKey,
            "PRESIGN_S3_SECRET_ACCESS_KEY": s3.secretKey,
            "PRESIGN_S3_ENDPOINT": s3.endpoint,
            "PRESIGN_S3_BUCKET": s3.bucket,
            "PRESIGN_S3_REGION": s3.region,
            "PRESIGN_LIMITS_ENABLED": "false",
        ]
        if let publicPort { env["PRESIGN_S3_PUBLIC_ENDPOINT"] = "http://127.0.0.1:\(publicPort)" }
        for (k, v) in extra { env[k] = v }
        return (try ServerProcess(environment: env), dir)
    }

    /// The real server behind a recording proxy (which also injects faults) in front of RGW as its
    /// public endpoint: the proxy, the server and its directory. Stop both when done.
    static func proxiedServer(extra: [String: String]) throws -> (RecordingProxy, ServerProcess, String) {
        let s3 = try s3()
        let faults = try RecordingProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        do {
            let (server, dir) = try server(s3, publicPort: faults.port, extra: extra)
            return (faults, server, dir)
        } catch {
            faults.close()
            throw error
        }
    }

    static func client(_ server: ServerProcess, user: String = "42") -> PresignClient {
        PresignClient(
            configuration: .init(
                serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, headers: ["X-User-Id": user]))
    }

    /// A fixture image of the ImageProbe tests (a real PNG / JPEG, so content checks pass).
    static func fixture(_ name: String) throws -> Data {
        try Data(contentsOf: ServerProcess.packageRoot.appendingPathComponent("Tests/ImageProbeTests/Fixtures/\(name)"))
    }

    /// Reads a URL (a record's signed GET) with a plain URLSession.
    static func download(_ url: String) async throws -> (Int, Data) {
        let (data, response) = try await URLSession(configuration: .ephemeral).data(from: try ExactURL.make(url))
        return ((response as? HTTPURLResponse)?.statusCode ?? -1, data)
    }

    /// The path and query of a URL string (what an HTTP/1.1 client puts in its request line).
    static func target(of url: String) -> String {
        let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? url[...]
        return String(afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...])
    }

    /// A file of `size` pseudo-random bytes (a JPEG header first, so type sniffing sees an image).
    static func file(_ size: Int, in dir: String, name: String = "big.bin", prefix: Data = Data()) throws -> (URL, Data)
    {
        var data = Data(SplitMix64.bytes(size, seed: 0x9E37_79B9_7F4A_7C15 ^ UInt64(size)))
        if !prefix.isEmpty { data.replaceSubrange(0..<min(prefix.count, size), with: prefix.prefix(size)) }
        let url = URL(fileURLWithPath: dir + "/" + name)
        try data.write(to: url)
        return (url, data)
    }

    /// The presign-upload binary beside the test bundle (or in .build/debug).
    static var cli: URL {
        if let p = ProcessInfo.processInfo.environment["PRESIGN_TEST_UPLOAD_BINARY"] { return URL(fileURLWithPath: p) }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("presign-upload")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return ServerProcess.packageRoot.appendingPathComponent(".build/debug/presign-upload")
    }
}

/// The CLI run as a child process; its output collected by reader threads.
final class CLIProcess: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var out = Data()
    private var err = Data()
    private let group = DispatchGroup()

    init(_ arguments: [String], executable: URL = E2E.cli, environment: [String: String]? = nil) throws {
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        let o = Pipe()
        let e = Pipe()
        process.standardOutput = o
        process.standardError = e
        process.standardInput = FileHandle.nullDevice
        try process.run()
        for (pipe, isErr) in [(o, false), (e, true)] {
            group.enter()
            let handle = pipe.fileHandleForReading
            Thread { [self] in
                while true {
                    let d = handle.availableData
                    if d.isEmpty { break }
                    lock.lock()
                    if isErr { err.append(d) } else { out.append(d) }
                    lock.unlock()
                }
                group.leave()
            }.start()
        }
    }

    /// Waits for the exit and the end of both outputs; returns the status.
    func wait() -> Int32 {
        process.waitUntilExit()
        group.wait()
        return process.terminationStatus
    }

    var stdout: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: out, as: UTF8.self)
    }

    var stderr: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: err, as: UTF8.self)
    }

    /// The JSON objects printed on stdout, one a line.
    var jsonLines: [[String: Any]] {
        stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// Runs the CLI to its end.
    static func run(_ arguments: [String]) throws -> CLIProcess {
        let p = try CLIProcess(arguments)
        _ = p.wait()
        return p
    }
}

extension CLIProcess {
    /// Starts the CLI with `arguments` (a multipart upload keeping its state in `stateDir`) while
    /// `faults` holds every part PUT for 700 ms, waits until a state file there shows a part done, then
    /// sends `signalNumber` and waits for the CLI to end. The CLI, and the state it left (nil when it
    /// ended before a part was recorded).
    static func interrupted(
        _ arguments: [String], by signalNumber: Int32, stateDir: String, faults: RecordingProxy
    ) throws -> (CLIProcess, MultipartState?) {
        faults.inject { _, method in method == "PUT" ? .stall(milliseconds: 700) : nil }
        defer { faults.inject { _, _ in nil } }
        let cli = try CLIProcess(arguments)
        var state: MultipartState?
        while cli.process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: stateDir)) ?? []
            if let name = names.first(where: { $0.hasSuffix(".json") }),
                let s = MultipartState.load(URL(fileURLWithPath: stateDir + "/" + name)), !s.etags.isEmpty
            {
                state = s
                break
            }
            usleep(5_000)
        }
        kill(cli.process.processIdentifier, signalNumber)
        _ = cli.wait()
        return (cli, state)
    }
}
