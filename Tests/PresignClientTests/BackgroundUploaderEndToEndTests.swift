import Foundation
import PresignClient
import TestSupport
import Testing

/// `BackgroundUploader` through the server's native multipart API (`/uploads`) and RGW, with a
/// recording proxy in front of RGW as the server's public endpoint, so every part PUT is counted. On
/// Linux the uploader's state machine drives a foreground session (`ForegroundSender`), as the tests run
/// it; a launch that dies is a sender that stops after some parts.
@Suite("PresignClient end to end: background-style uploads through /uploads", .serialized)
struct BackgroundUploaderEndToEndTests {
    static let mib = 1_048_576
    static let extra = ["PRESIGN_MULTIPART_ENABLED": "true"]

    /// A launch that dies after `count` parts: those are sent (and saved), then the process is gone.
    struct DyingSender: PartSender {
        let inner: ForegroundSender
        let count: Int

        func send(
            _ parts: [SignedPart], of file: URL, state: BackgroundUploadState,
            sent: @escaping @Sendable (Int) async -> Void
        ) async throws {
            try await inner.send(Array(parts.prefix(count)), of: file, state: state, sent: sent)
            throw PresignClientError.cancelled
        }
    }

    static func stateURL(_ dir: String) -> URL { URL(fileURLWithPath: dir + "/upload-\(UUID().uuidString).json") }

    /// The part numbers of the proxy's PUTs (from their `partNumber` query parameter).
    static func partPuts(_ proxy: RecordingProxy) -> [Int] {
        proxy.requests.filter { $0.method == "PUT" }.compactMap { seen in
            URLComponents(string: "http://x" + seen.target)?.queryItems?.first { $0.name == "partNumber" }?.value
                .flatMap(Int.init)
        }
    }

    @Test("killed after two parts and relaunched from its saved state: only the missing parts are sent")
    func resumesFromTheServersWord() async throws {
        let (proxy, server, dir) = try E2E.proxiedServer(extra: Self.extra)
        defer {
            server.stop()
            proxy.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(21 * Self.mib, in: dir, name: "clip.mp4")
        let stateFile = Self.stateURL(dir)
        var uploader = BackgroundUploader(client: client, type: "VIDEO", partSize: 5 * Int64(Self.mib))
        uploader.restarts = 0
        await #expect(throws: PresignClientError.cancelled) {
            try await uploader.upload(
                fileAt: file, contentType: "video/mp4", stateFile: stateFile,
                sender: DyingSender(inner: ForegroundSender(client: client, concurrency: 1), count: 2))
        }
        let saved = try #require(BackgroundUploadState.load(stateFile))
        #expect(saved.parts.count == 5 && saved.sent == [1, 2])
        #expect(Self.partPuts(proxy) == [1, 2])

        let r = try await uploader.upload(fileAt: file, contentType: "video/mp4", stateFile: stateFile)
        #expect(r.uploadId == saved.uploadId)
        #expect(r.partsResumed == 2 && r.partsSent == 3 && r.restarted == 0)
        let puts = Self.partPuts(proxy)
        #expect(puts.count == 5)
        #expect(puts.sorted() == [1, 2, 3, 4, 5], "no part sent twice")
        #expect(r.record.size == Int64(data.count))
        #expect(r.record.type == "VIDEO")
        #expect(!FileManager.default.fileExists(atPath: stateFile.path), "the state goes with the upload")
        let status = try await client.uploadStatus(r.uploadId)
        #expect(status.state == "completed" && status.record?.id == r.record.id)
    }

    @Test("an upload the server no longer has (seed 002): the uploader starts a new one by itself")
    func startsAgainWhenGone() async throws {
        let (proxy, server, dir) = try E2E.proxiedServer(extra: Self.extra)
        defer {
            server.stop()
            proxy.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(11 * Self.mib, in: dir, name: "clip.mp4")
        let stateFile = Self.stateURL(dir)
        let uploader = BackgroundUploader(client: client, type: "VIDEO")
        await #expect(throws: PresignClientError.cancelled) {
            try await uploader.upload(
                fileAt: file, contentType: "video/mp4", stateFile: stateFile,
                sender: DyingSender(inner: ForegroundSender(client: client), count: 1))
        }
        let saved = try #require(BackgroundUploadState.load(stateFile))
        try await client.abortUpload(saved.uploadId)
        let r = try await uploader.upload(fileAt: file, contentType: "video/mp4", stateFile: stateFile)
        #expect(r.restarted == 1)
        #expect(r.uploadId != saved.uploadId)
        #expect(r.record.size == Int64(data.count))
        await #expect(throws: PresignClientError.self) { try await client.signUploadParts(saved.uploadId, parts: [1]) }
    }
}
