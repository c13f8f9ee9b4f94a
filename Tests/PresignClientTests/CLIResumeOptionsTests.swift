import Foundation
import PresignClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `presign-upload` rerun with other part options after an interruption (issue 35), against the real
/// server and RGW: a bare rerun still waits for --resume or --restart, and --resume keeps the parts
/// already sent in their part size instead of aborting the upload as if the file had changed.
@Suite("presign-upload: resuming with other part options", .serialized)
struct CLIResumeOptionsTests {
    @Test("--resume with another --part-size and --concurrency keeps the sent parts; a bare rerun still waits")
    func resumeWithOtherPartOptions() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: CLIFirstHourTests.uppy)
        defer {
            server.stop()
            faults.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(
            20 * CLIFirstHourTests.mib, in: dir, name: "clip.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let stateDir = dir + "/state"
        // Interrupted while sending 5 MiB parts, one at a time.
        let (_, left) = try CLIFirstHourTests.interrupt(
            SIGINT, server: server, file: file, stateDir: stateDir, faults: faults)
        let other = ["--multipart-threshold", "1", "--part-size", "8", "--concurrency", "3", "--state-dir", stateDir]

        let bare = try CLIProcess.run(CLIFirstHourTests.base(server) + other + [file.path])
        #expect(bare.process.terminationStatus == 2, "\(bare.stderr)")
        #expect(bare.stderr.contains("an interrupted upload of this file is waiting"), "\(bare.stderr)")
        #expect(try await client.listParts(left.upload).count >= left.etags.count, "the bare rerun aborted nothing")

        let resumed = try CLIProcess.run(
            CLIFirstHourTests.base(server) + other + ["--progress", "none", "--resume", "--json", file.path])
        #expect(resumed.process.terminationStatus == 0, "\(resumed.stderr)")
        #expect(!resumed.stderr.contains("changed"), "\(resumed.stderr)")
        #expect(
            resumed.stderr.contains(
                "resumed in parts of 5 MiB, the interrupted upload's (not 8 MiB: the parts already sent were cut at that size)"
            ), "\(resumed.stderr)")
        let out = try #require(resumed.jsonLines.first)
        #expect(out["uploadId"] as? String == left.upload.uploadId)
        #expect(out["abortedUploadId"] == nil)
        #expect(out["partSize"] as? Int == 5 * CLIFirstHourTests.mib)
        #expect((out["partsResumed"] as? Int ?? 0) >= left.etags.count, "\(out)")
        let record = try await client.image(id: try #require(out["recordId"] as? String))
        #expect(try await E2E.download(try #require(record.url)).1 == data)
    }
}
