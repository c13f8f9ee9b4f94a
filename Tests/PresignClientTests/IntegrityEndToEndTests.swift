import Crypto
import Foundation
import PresignClient
import TestSupport
import Testing

/// The client side of integrity (issue 37): the library and `presign-upload` read the file's digests,
/// declare them with its size, and show the digest the server recorded; a multipart upload over its
/// type's limit is refused before a byte of the file goes out; a part whose bytes storage refuses for
/// its signed MD5 is read from the file and sent again. The server binary, RGW, and a recording proxy
/// in front of RGW as the server's public endpoint (every byte to storage passes it).
@Suite("PresignClient end to end: declared digests, sizes refused up front", .serialized)
struct IntegrityEndToEndTests {
    static let mib = 1_048_576

    static func sha256(_ data: Data) -> String { Base64.encode(SHA256.hash(Array(data)).bytes) }

    @Test("a multipart upload declaring 30 MiB for a 20 MiB type: refused at creation, no byte of the file sent")
    func oversizeRefusedBeforeAnyByte() async throws {
        let (proxy, server, dir) = try E2E.proxiedServer(extra: ["PRESIGN_UPPY_ENABLED": "true"])
        defer {
            server.stop()
            proxy.close()
        }
        let (file, _) = try E2E.file(
            30 * Self.mib, in: dir, name: "big.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let run = try CLIProcess.run([
            "--server", "http://127.0.0.1:\(server.port)", "--user-id", "42", "--json", "--state-dir",
            dir + "/state", file.path,
        ])
        #expect(run.process.terminationStatus == 4, "stdout: \(run.stdout) stderr: \(run.stderr)")
        let out = try #require(run.jsonLines.first, "\(run.stdout)")
        #expect(out["status"] as? Int == 422, "\(out)")
        #expect((out["error"] as? String ?? "").contains("size"), "\(out)")
        // Nothing reached storage's public endpoint: not a part, not a byte.
        #expect(proxy.requests.isEmpty, "\(proxy.requests.map { "\($0.method) \($0.bodyLength)" })")
        #expect(proxy.requests.reduce(0) { $0 + $1.bodyLength } == 0)
        // Without the size declared the same file would have gone part by part before the refusal:
        // the library call that declares it is refused the same way.
        let client = E2E.client(server)
        await #expect(throws: PresignClientError.self) {
            _ = try await client.createMultipart(
                filename: "big.jpg", contentType: "image/jpeg",
                declaring: Declaration(size: Int64(30 * Self.mib)))
        }
        #expect(proxy.requests.isEmpty)
    }

    @Test(
        "a part damaged on the way: storage refuses it for its signed MD5 (BadDigest), the client sends it again from the file"
    )
    func damagedPartResent() async throws {
        let (proxy, server, dir) = try E2E.proxiedServer(extra: ["PRESIGN_UPPY_ENABLED": "true"])
        defer {
            server.stop()
            proxy.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(
            11 * Self.mib, in: dir, name: "clip.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        // The first request through the proxy (the first part PUT) arrives with a byte flipped.
        proxy.inject { number, method in number == 1 && method == "PUT" ? .corruptBody : nil }
        var uploader = MultipartUploader(
            client: client, options: MultipartOptions(partSize: 5 * Self.mib, concurrency: 1))
        uploader.random = { 0 }
        let r = try await uploader.upload(fileAt: file, contentType: "image/jpeg")
        #expect(proxy.injectedCount == 1)
        let puts = proxy.requests.filter { $0.method == "PUT" }
        try #require(puts.count == 4, "\(puts.map(\.status))")
        #expect(puts[0].status == 400, "BadDigest")
        #expect(puts.dropFirst().allSatisfy { $0.status == 200 })
        // Every part went with its Content-MD5, and the refused one was signed again (a new URL).
        #expect(puts.allSatisfy { p in p.headerLines.contains { $0.lowercased().hasPrefix("content-md5:") } })
        #expect(puts[1].target != puts[0].target)
        #expect(r.retries == 1)
        #expect(r.record?.sha256 == Self.sha256(data), "the whole file's SHA-256, declared and proven")
        let record = try await client.image(id: try #require(r.record?.id))
        #expect(record.sha256 == Self.sha256(data))
    }

    @Test("one PUT: the CLI declares the digests (Content-MD5 signed and sent) and prints the recorded sha256")
    func cliShowsRecordedDigest() async throws {
        let (proxy, server, dir) = try E2E.proxiedServer(extra: [:])
        defer {
            server.stop()
            proxy.close()
        }
        let file = URL(fileURLWithPath: dir + "/a.jpg")
        let data = try E2E.fixture("jpeg-exif-40x30.jpg")
        try data.write(to: file)
        let base = ["--server", "http://127.0.0.1:\(server.port)", "--user-id", "cli9"]
        let run = try CLIProcess.run(base + ["--json", file.path])
        #expect(run.process.terminationStatus == 0, "stderr: \(run.stderr)")
        let out = try #require(run.jsonLines.first, "\(run.stdout)")
        #expect(out["sha256"] as? String == Self.sha256(data), "\(out)")
        let put = try #require(proxy.requests.first { $0.method == "PUT" })
        #expect(put.headerLines.contains { $0.lowercased().hasPrefix("content-md5:") }, "\(put.headerLines)")
        // --no-checksums declares the size alone: the record has no SHA-256.
        let plain = try CLIProcess.run(base + ["--json", "--no-checksums", file.path])
        #expect(plain.process.terminationStatus == 0, "stderr: \(plain.stderr)")
        #expect(plain.jsonLines.first?["sha256"] is NSNull, "\(plain.stdout)")
        // The text output ends with the digest.
        let text = try CLIProcess.run(base + [file.path])
        #expect(text.stdout.contains(Self.sha256(data)) || text.stderr.contains(Self.sha256(data)), "\(text.stdout)")
    }
}
