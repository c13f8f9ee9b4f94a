import Foundation
import Testing

@testable import PresignClient

/// Resuming with other part options (issue 35): the parts already sent are kept in the part size they
/// were cut at, and an upload is aborted as "changed" only when the file did change.
@Suite("PresignClient: resuming with other part options", .serialized)
struct MultipartResumeTests {
    static let mib = MultipartUploaderTests.mib

    /// A state of `file` (as it is now) for upload `id` of `key` cut in `partSize` parts, part 1 done.
    static func state(_ file: URL, bytes: [UInt8], key: String, id: String, partSize: Int) -> MultipartState {
        MultipartState(
            filePath: file.path, fileSize: Int64(bytes.count), fileModified: MultipartUploader.modificationTime(file),
            partSize: partSize, upload: MultipartUpload(key: key, uploadId: id, bucket: "bucket"),
            etags: ["1": FakeCompanion.etag(Array(bytes[0..<partSize]))])
    }

    static func stateURL() -> URL {
        URL(fileURLWithPath: NSTemporaryDirectory() + "state-\(UUID().uuidString).json")
    }

    @Test("resumed with another part size: the state's part size is kept, no part sent again, nothing aborted")
    func keepsTheStatesPartSize() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let (file, bytes) = try MultipartUploaderTests.file(16 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let key = "tmp/resumed.bin"
        let id = fake.makeUpload(key: key)
        fake.storePart(id, 1, Array(bytes[0..<(5 * Self.mib)]))
        fake.storePart(id, 2, Array(bytes[(5 * Self.mib)..<(10 * Self.mib)]))
        let stateURL = Self.stateURL()
        try Self.state(file, bytes: bytes, key: key, id: id, partSize: 5 * Self.mib).save(stateURL)
        // Asked now: 8 MiB parts, 3 at once.
        var uploader = MultipartUploaderTests.uploader(fake, concurrency: 3)
        uploader.options.partSize = 8 * Self.mib
        let r = try await uploader.upload(fileAt: file, contentType: "video/mp4", stateFile: stateURL, resume: true)
        #expect(r.uploadId == id && r.key == key)
        #expect(r.partSize == 5 * Self.mib)
        #expect(r.partCount == 4)
        #expect(r.partsResumed == 2 && r.partsUploaded == 2)
        #expect(r.abortedUploadId == nil && r.abortReason == nil)
        #expect(fake.attempts(1) == 0 && fake.attempts(2) == 0)
        #expect(fake.completedObjects()[key] == bytes)
        #expect(fake.count("DELETE", prefix: "/s3/multipart/") == 0)
    }

    @Test("a file that did change: the old upload is aborted and the reason says what changed")
    func changedFile() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let (file, bytes) = try MultipartUploaderTests.file(11 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let id = fake.makeUpload(key: "tmp/old.bin")
        let stateURL = Self.stateURL()
        var state = Self.state(file, bytes: bytes, key: "tmp/old.bin", id: id, partSize: 5 * Self.mib)
        state.fileSize += 1
        try state.save(stateURL)
        let r = try await MultipartUploaderTests.uploader(fake).upload(
            fileAt: file, contentType: "video/mp4", stateFile: stateURL, resume: true)
        #expect(r.uploadId != id)
        #expect(r.abortedUploadId == id)
        #expect(r.abortReason == .fileChanged("its size is now \(bytes.count) bytes, was \(bytes.count + 1)"))
        #expect(fake.upload(id) == nil, "aborted on the server")
        #expect(fake.completedObjects()[r.key] == bytes)
    }

    @Test("not resuming (a restart) aborts the old upload as not resumed, not as changed")
    func restartIsNotAChange() async throws {
        let fake = try FakeCompanion()
        defer { fake.server.close() }
        let (file, bytes) = try MultipartUploaderTests.file(11 * Self.mib)
        defer { try? FileManager.default.removeItem(at: file) }
        let id = fake.makeUpload(key: "tmp/old.bin")
        let stateURL = Self.stateURL()
        try Self.state(file, bytes: bytes, key: "tmp/old.bin", id: id, partSize: 5 * Self.mib).save(stateURL)
        var uploader = MultipartUploaderTests.uploader(fake)
        uploader.options.partSize = 6 * Self.mib
        let r = try await uploader.upload(fileAt: file, contentType: "video/mp4", stateFile: stateURL, resume: false)
        #expect(r.abortedUploadId == id && r.abortReason == .notResumed)
        #expect(r.partSize == 6 * Self.mib)
    }

    @Test("what differs between a state and its file: path, size, modification time; nothing when unchanged")
    func change() throws {
        let (file, bytes) = try MultipartUploaderTests.file(1024)
        defer { try? FileManager.default.removeItem(at: file) }
        let modified = MultipartUploader.modificationTime(file)
        let same = MultipartState(
            filePath: file.path, fileSize: Int64(bytes.count), fileModified: modified, partSize: 5 * Self.mib,
            upload: MultipartUpload(key: "k", uploadId: "u", bucket: "bucket"), etags: [:])
        #expect(same.change(file: file, size: 1024, modified: modified) == nil)
        #expect(same.isOf(file: file, size: 1024, modified: modified))
        #expect(same.matches(file: file, size: 1024, modified: modified, partSize: 5 * Self.mib))
        #expect(!same.matches(file: file, size: 1024, modified: modified, partSize: 8 * Self.mib))
        #expect(same.change(file: file, size: 1000, modified: modified) == "its size is now 1000 bytes, was 1024")
        #expect(
            same.change(file: file, size: 1024, modified: 86_400)
                == "it was modified at 1970-01-02T00:00:00Z, after the state of "
                + ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: modified)))
        let other = URL(fileURLWithPath: "/tmp/other.bin")
        #expect(
            same.change(file: other, size: 1024, modified: modified)
                == "the state is of \(file.path), not /tmp/other.bin")
    }
}
