import Foundation
import TestSupport
import Testing

@testable import PresignClient

/// The uploader against a loopback fake of the multipart routes and of storage (pure client logic:
/// retries, re-signing, resume, restart, bounded concurrency). The real server and RGW are in
/// ClientEndToEndTests.
@Suite("PresignClient: multipart uploader against a fake of the routes", .serialized)
struct MultipartUploaderTests {
    static let mib = 1_048_576

    static func file(_ size: Int) throws -> (URL, [UInt8]) {
        let bytes = SplitMix64.bytes(size, seed: UInt64(size))
        let url = URL(fileURLWithPath: NSTemporaryDirectory() + "presign-client-\(UUID().uuidString).bin")
        try Data(bytes).write(to: url)
        return (url, bytes)
    }

    static func uploader(_ fake: FakeCompanion, concurrency: Int = 2, attempts: Int = 4) -> MultipartUploader {
        let client = PresignClient(configuration: .init(serverURL: fake.url, headers: ["X-User-Id": "42"]))
        var u = MultipartUploader(
            client: client,
            options: MultipartOptions(
                partSize: 5 * mib, concurrency: concurrency, retry: RetryPolicy(maxAttempts: attempts)))
        u.sleep = { _ in }
        return u
    }

    @Test("12 MiB in 3 parts, 2 in flight at most, completed with every part's ETag in order")
    func uploadsInParts() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        fake.putDelay = { usleep(30_000) }
        let (file, bytes) = try Self.file(12 * Self.mib + 5)
        defer { try? FileManager.default.removeItem(at: file) }
        let seen = ProgressLog()
        let r = try await Self.uploader(fake).upload(
            fileAt: file, contentType: "video/mp4", progress: { seen.add($0) })
        #expect(r.partCount == 3)
        #expect(r.partsUploaded == 3)
        #expect(r.retries == 0)
        #expect(fake.completedObjects()[r.key] == bytes)
        #expect(fake.maxInFlight <= 2)
        #expect(fake.maxInFlight >= 1)
        let values = seen.values
        #expect(values.last == TransferProgress(bytesSent: Int64(bytes.count), totalBytes: Int64(bytes.count)))
        #expect(values.allSatisfy { $0.bytesSent <= $0.totalBytes })
    }

    @Test("a part answered 500 once is retried; one answered 403 AccessDenied (expired) is re-signed")
    func retriesAndResigns() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        fake.putFault = { n, attempt in
            if n == 1 && attempt == 1 { return .xmlError(500, "InternalError") }
            if n == 2 && attempt == 1 { return .xmlError(403, "AccessDenied") }
            return nil
        }
        let (file, bytes) = try Self.file(11 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try await Self.uploader(fake).upload(fileAt: file, contentType: "video/mp4")
        #expect(fake.completedObjects()[r.key] == bytes)
        #expect(r.retries == 2)
        #expect(fake.attempts(1) == 2)
        #expect(fake.attempts(2) == 2)
        let id = r.uploadId
        // Part 1 reused its URL (one signing), part 2 got a new one (two signings).
        #expect(fake.count("GET", prefix: "/s3/multipart/\(id)/1?") == 1)
        #expect(fake.count("GET", prefix: "/s3/multipart/\(id)/2?") == 2)
    }

    @Test("a part that keeps failing gives up after maxAttempts with the storage's code")
    func givesUp() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        fake.putFault = { n, _ in n == 2 ? .xmlError(503, "ServiceUnavailable") : nil }
        let (file, _) = try Self.file(6 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        await #expect(throws: PresignClientError.storage(status: 503, code: "ServiceUnavailable", message: "m")) {
            _ = try await Self.uploader(fake, attempts: 3).upload(fileAt: file, contentType: "video/mp4")
        }
        #expect(fake.attempts(2) == 3)
    }

    @Test("an EntityTooSmall refusal is final (not retried)")
    func finalRefusal() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        fake.putFault = { _, _ in .xmlError(400, "EntityTooSmall") }
        let (file, _) = try Self.file(6 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        do {
            _ = try await Self.uploader(fake, concurrency: 1).upload(fileAt: file, contentType: "video/mp4")
            Issue.record("the upload should have failed")
        } catch let e as PresignClientError {
            #expect(e.storageCode == "EntityTooSmall")
        }
        #expect(fake.attempts(1) == 1)
    }

    @Test("resume: parts the server lists are not sent again; the state file goes once complete")
    func resumes() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let (file, bytes) = try Self.file(16 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let key = "tmp/resumed.bin"
        let id = fake.makeUpload(key: key)
        fake.storePart(id, 1, Array(bytes[0..<(5 * Self.mib)]))
        fake.storePart(id, 3, Array(bytes[(10 * Self.mib)..<(15 * Self.mib)]))
        let stateURL = URL(fileURLWithPath: NSTemporaryDirectory() + "state-\(UUID().uuidString).json")
        let state = MultipartState(
            filePath: file.path, fileSize: Int64(bytes.count), fileModified: MultipartUploader.modificationTime(file),
            partSize: 5 * Self.mib, upload: MultipartUpload(key: key, uploadId: id, bucket: "bucket"),
            etags: ["1": FakeCompanion.etag(Array(bytes[0..<(5 * Self.mib)]))])
        try state.save(stateURL)
        let r = try await Self.uploader(fake).upload(
            fileAt: file, contentType: "video/mp4", stateFile: stateURL, resume: true)
        #expect(r.key == key)
        #expect(r.uploadId == id)
        #expect(r.partsResumed == 2)
        #expect(r.partsUploaded == 2)
        #expect(fake.attempts(1) == 0)
        #expect(fake.attempts(3) == 0)
        #expect(fake.attempts(2) == 1)
        #expect(fake.attempts(4) == 1)
        #expect(fake.completedObjects()[key] == bytes)
        #expect(!FileManager.default.fileExists(atPath: stateURL.path))
    }

    @Test("the state file records each part as it is done")
    func savesState() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let (file, _) = try Self.file(11 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let stateURL = URL(fileURLWithPath: NSTemporaryDirectory() + "state-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: stateURL) }
        // Part 3 fails for good: parts 1 and 2 are done and must be in the state left behind.
        fake.putFault = { n, _ in n == 3 ? .xmlError(400, "InvalidArgument") : nil }
        await #expect(throws: PresignClientError.self) {
            _ = try await Self.uploader(fake, concurrency: 1).upload(
                fileAt: file, contentType: "video/mp4", stateFile: stateURL)
        }
        let saved = try #require(MultipartState.load(stateURL))
        #expect(Set(saved.etags.keys) == ["1", "2"])
        #expect(saved.partSize == 5 * Self.mib)
    }

    @Test("restart: when the server says the upload is gone, a new key and upload id are used")
    func restartsWhenGone() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let (file, bytes) = try Self.file(6 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let oldKey = "tmp/old.bin"
        let oldId = fake.makeUpload(key: oldKey)
        fake.removeUpload(oldId)  // aborted on the server
        let stateURL = URL(fileURLWithPath: NSTemporaryDirectory() + "state-\(UUID().uuidString).json")
        try MultipartState(
            filePath: file.path, fileSize: Int64(bytes.count), fileModified: MultipartUploader.modificationTime(file),
            partSize: 5 * Self.mib, upload: MultipartUpload(key: oldKey, uploadId: oldId, bucket: nil),
            etags: ["1": "x"]
        ).save(stateURL)
        let r = try await Self.uploader(fake).upload(
            fileAt: file, contentType: "video/mp4", stateFile: stateURL, resume: true)
        #expect(r.restarts == 1)
        #expect(r.key != oldKey)
        #expect(r.uploadId != oldId)
        #expect(fake.completedObjects()[r.key] == bytes)
    }

    @Test("restart mid-upload: a part PUT answered NoSuchUpload starts again with a new upload")
    func restartsOnNoSuchUpload() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        fake.putFault = { n, attempt in n == 2 && attempt == 1 ? .xmlError(404, "NoSuchUpload") : nil }
        let (file, bytes) = try Self.file(6 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try await Self.uploader(fake, concurrency: 1).upload(fileAt: file, contentType: "video/mp4")
        #expect(r.restarts == 1)
        #expect(fake.completedObjects()[r.key] == bytes)
        #expect(fake.count("POST", prefix: "/s3/multipart") - fake.count("POST", prefix: "/s3/multipart/") == 2)
    }

    @Test("cancelling the task stops the upload with .cancelled")
    func cancels() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let gate = Gate()
        fake.putDelay = { gate.arrive() }
        let (file, _) = try Self.file(6 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let u = Self.uploader(fake, concurrency: 1)
        let task = Task { try await u.upload(fileAt: file, contentType: "video/mp4") }
        gate.waitForArrival()
        task.cancel()
        gate.open()
        do {
            _ = try await task.value
            Issue.record("a cancelled upload completed")
        } catch let e as PresignClientError {
            #expect(e == .cancelled)
        } catch is CancellationError {
        }
        #expect(fake.completedObjects().isEmpty)
    }

    @Test("batch signing returns one URL per part number")
    func batch() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let client = PresignClient(configuration: .init(serverURL: fake.url))
        let up = try await client.createMultipart(filename: "a.mp4", contentType: "video/mp4")
        let urls = try await client.signParts(up, partNumbers: [1, 2, 3])
        #expect(Set(urls.keys) == [1, 2, 3])
        #expect(urls[2]!.contains("partNumber=2&"))
        #expect(urls[2]!.contains("%2F20260101%2F"))
        try await client.abortMultipart(up)
        #expect(fake.upload(up.uploadId) == nil)
        await #expect(throws: PresignClientError.server(status: 404, code: "NO_SUCH_UPLOAD", message: "no such upload"))
        {
            _ = try await client.listParts(up)
        }
    }
}

/// Progress values seen by a handler.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [TransferProgress] = []
    func add(_ p: TransferProgress) {
        lock.lock()
        list.append(p)
        lock.unlock()
    }
    var values: [TransferProgress] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}

/// A PUT handler waits here until the test opens the gate; the test waits for its arrival.
final class Gate: @unchecked Sendable {
    private let arrived = DispatchSemaphore(value: 0)
    private let opened = DispatchSemaphore(value: 0)
    func arrive() {
        arrived.signal()
        opened.wait()
        opened.signal()
    }
    func waitForArrival() { arrived.wait() }
    func open() { opened.signal() }
}
