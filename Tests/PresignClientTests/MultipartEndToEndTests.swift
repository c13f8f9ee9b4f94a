import Foundation
import PresignClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Multipart uploads through the server's /s3/multipart routes (Uppy Companion's shapes) and RGW,
/// with a recording proxy (which also injects the faults) in front of RGW as the server's public endpoint.
@Suite("PresignClient end to end: multipart through the server's /s3 routes and RGW", .serialized)
struct MultipartEndToEndTests {
    static let mib = 1_048_576

    /// The /s3 routes on (their default upload type, IMAGE, allows 20 MiB).
    static let extra: [String: String] = ["PRESIGN_UPPY_ENABLED": "true"]

    /// Reads back the completed object through the record the server made at completion.
    static func readBack(_ client: PresignClient, recordId: String?) async throws -> Data {
        let record = try await client.image(id: try #require(recordId))
        let (status, body) = try await E2E.download(try #require(record.url))
        #expect(status == 200)
        return body
    }

    @Test("20 MiB in 4 parts with one part PUT failing once (500 injected by the proxy): retried, completed, identical")
    func partFailsOnce() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: Self.extra)
        defer {
            server.stop()
            faults.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(
            20 * Self.mib, in: dir, name: "video.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        // The second request through the proxy (a part PUT: the server's own calls go to RGW directly).
        faults.inject { number, _ in number == 2 ? .status(500, code: "InternalError") : nil }
        var uploader = MultipartUploader(
            client: client, options: MultipartOptions(partSize: 5 * Self.mib, concurrency: 2))
        uploader.random = { 0 }
        let r = try await uploader.upload(fileAt: file, contentType: "image/jpeg")
        #expect(faults.injectedCount == 1)
        #expect(r.retries == 1)
        #expect(r.partCount == 4)
        let puts = faults.requests.filter { $0.method == "PUT" }
        #expect(puts.count == 5)
        #expect(puts.filter { $0.status == 200 }.count == 4)
        #expect(Set(puts.map { $0.target }).count == 4)  // the failed part was sent again to the same URL
        // Each part went with its exact length, not chunked (a presigned UploadPart needs Content-Length).
        for p in puts {
            #expect(p.headerLines.contains { $0.lowercased() == "content-length: \(5 * Self.mib)" })
            #expect(!p.headerLines.contains { $0.lowercased().hasPrefix("transfer-encoding") })
        }
        let body = try await Self.readBack(client, recordId: r.record?.id)
        #expect(body.count == data.count)
        #expect(body == data)
    }

    @Test("a part URL that expired on the way (403 from RGW) is signed again and the part sent again")
    func expiredPartURLIsResigned() async throws {
        let s3 = try E2E.s3()
        let proxy = try RecordingProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        defer { proxy.close() }
        // Part URLs live 2 s; the proxy holds the first PUT 3.5 s before RGW sees it.
        var extra = Self.extra
        extra["PRESIGN_UPPY_URL_EXPIRES_SECONDS"] = "2"
        let (server, dir) = try E2E.server(s3, publicPort: proxy.port, extra: extra)
        defer { server.stop() }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(
            5 * Self.mib + 4096, in: dir, name: "late.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        proxy.inject { number, _ in number == 1 ? .stall(milliseconds: 3500) : nil }
        var uploader = MultipartUploader(
            client: client, options: MultipartOptions(partSize: 5 * Self.mib, concurrency: 1))
        uploader.random = { 0 }
        let r = try await uploader.upload(fileAt: file, contentType: "image/jpeg")
        let puts = proxy.requests.filter { $0.method == "PUT" }
        // The stalled PUT of part 1 is refused; on a loaded machine another 2 s URL may expire before
        // it is sent too, so every 403 must be followed by a PUT of the same part to a new URL, and
        // each part ends with one 200.
        try #require(puts.count >= 3)
        func part(_ target: String) -> String? {
            target.split(separator: "?").last?.split(separator: "&").first { $0.hasPrefix("partNumber=") }
                .map(String.init)
        }
        #expect(puts[0].status == 403)
        #expect(part(puts[0].target) == "partNumber=1")
        #expect(puts.allSatisfy { $0.status == 200 || $0.status == 403 })
        for (i, refused) in puts.enumerated() where refused.status == 403 {
            let next = puts[(i + 1)...].first { part($0.target) == part(refused.target) }
            #expect(next != nil && next?.target != refused.target, "a refused part is signed again")
        }
        for n in ["partNumber=1", "partNumber=2"] {
            #expect(puts.filter { part($0.target) == n }.last?.status == 200, "\(n) ends with a 200")
            #expect(puts.filter { part($0.target) == n && $0.status == 200 }.count == 1)
        }
        #expect(r.retries == puts.filter { $0.status == 403 }.count)
        #expect(try await Self.readBack(client, recordId: r.record?.id) == data)
    }

    @Test("uploadFile picks by size: a small file in one PUT (confirmed), a larger one in parts (recorded)")
    func uploadFileBySize() async throws {
        let s3 = try E2E.s3()
        let (server, dir) = try E2E.server(s3, publicPort: nil, extra: Self.extra)
        defer { server.stop() }
        let client = E2E.client(server)
        let jpeg = try E2E.fixture("jpeg-baseline-64x48.jpg")
        let (small, smallData) = try E2E.file(jpeg.count + 1000, in: dir, name: "small.jpg", prefix: jpeg)
        let (large, largeData) = try E2E.file(11 * Self.mib, in: dir, name: "large.jpg", prefix: jpeg)
        let options = MultipartOptions(threshold: 5 * Int64(Self.mib), partSize: 5 * Self.mib, concurrency: 3)
        let one = try await client.uploadFile(small, contentType: "image/jpeg", options: options)
        #expect(one.multipart == nil)
        #expect(try await Self.readBack(client, recordId: one.record?.id) == smallData)
        let parts = try await client.uploadFile(large, contentType: "image/jpeg", options: options)
        #expect(parts.multipart?.partCount == 3)
        #expect(parts.record?.size == Int64(largeData.count))
        #expect(try await Self.readBack(client, recordId: parts.record?.id) == largeData)
    }

    /// Starts the CLI on a multipart upload whose part PUTs the proxy holds, waits until its state file
    /// shows a part done, and kills it with SIGKILL. Returns the state it left.
    static func killMidUpload(
        server: ServerProcess, file: URL, stateDir: String, faults: RecordingProxy
    ) throws -> MultipartState {
        let (cli, state) = try CLIProcess.interrupted(
            [
                "--server", "http://127.0.0.1:\(server.port)", "--user-id", "42", "--multipart-threshold", "1",
                "--part-size", "5", "--concurrency", "1", "--state-dir", stateDir, "--progress", "none", file.path,
            ], by: SIGKILL, stateDir: stateDir, faults: faults)
        #expect(cli.process.terminationReason == .uncaughtSignal, "the CLI ended before it was killed: \(cli.stderr)")
        return try #require(state, "no part was recorded in the state file: \(cli.stderr)")
    }

    @Test("resume after kill -9: the second run sends only the parts the server does not list")
    func resumeAfterKill() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: Self.extra)
        defer {
            server.stop()
            faults.close()
        }
        let (file, data) = try E2E.file(
            20 * Self.mib, in: dir, name: "clip.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let stateDir = dir + "/state"
        let left = try Self.killMidUpload(server: server, file: file, stateDir: stateDir, faults: faults)
        let done = left.etags.count
        #expect(done >= 1 && done < 4)

        let resumed = try CLIProcess.run([
            "--server", "http://127.0.0.1:\(server.port)", "--user-id", "42", "--multipart-threshold", "1",
            "--part-size", "5", "--concurrency", "2", "--state-dir", stateDir, "--json", "--resume", file.path,
        ])
        #expect(resumed.process.terminationStatus == 0, "stderr: \(resumed.stderr)")
        let out = try #require(resumed.jsonLines.first, "stdout: \(resumed.stdout)")
        #expect(out["uploadId"] as? String == left.upload.uploadId)
        let partsResumed = try #require(out["partsResumed"] as? Int)
        #expect(partsResumed >= done)
        #expect(out["partsUploaded"] as? Int == 4 - partsResumed)
        #expect(out["restarts"] as? Int == 0)
        #expect(out["recordId"] is String)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: stateDir)) ?? []).isEmpty)
        let body = try await Self.readBack(E2E.client(server), recordId: out["recordId"] as? String)
        #expect(body == data)
    }

    @Test("restart: the upload was aborted on the server after the kill; --resume starts again with a new key")
    func restartAfterAbort() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: Self.extra)
        defer {
            server.stop()
            faults.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(
            12 * Self.mib, in: dir, name: "gone.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let stateDir = dir + "/state"
        let left = try Self.killMidUpload(server: server, file: file, stateDir: stateDir, faults: faults)
        try await client.abortMultipart(left.upload)
        await #expect(throws: PresignClientError.self) { _ = try await client.listParts(left.upload) }

        let again = try CLIProcess.run([
            "--server", "http://127.0.0.1:\(server.port)", "--user-id", "42", "--multipart-threshold", "1",
            "--part-size", "5", "--state-dir", stateDir, "--json", "--resume", file.path,
        ])
        #expect(again.process.terminationStatus == 0, "stderr: \(again.stderr)")
        let out = try #require(again.jsonLines.first, "stdout: \(again.stdout)")
        #expect(out["restarts"] as? Int == 1)
        #expect(out["partsResumed"] as? Int == 0)
        let key = try #require(out["key"] as? String)
        #expect(key != left.upload.key)
        #expect(out["uploadId"] as? String != left.upload.uploadId)
        let body = try await Self.readBack(client, recordId: out["recordId"] as? String)
        #expect(body == data)
    }
}
