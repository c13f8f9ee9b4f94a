import Foundation
import PresignClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What `presign-upload` says and does in a new user's first hour (issue 19): the server's field
/// errors, a server without the multipart routes, Ctrl-C, a rerun, a resumed rate, a changed file.
@Suite("presign-upload: field errors, multipart routes missing, interruptions", .serialized)
struct CLIFirstHourTests {
    static let mib = 1_048_576
    static let uppy = ["PRESIGN_UPPY_ENABLED": "true"]

    static func base(_ server: ServerProcess) -> [String] {
        ["--server", "http://127.0.0.1:\(server.port)", "--user-id", "42"]
    }

    @Test("a 422 shows every field error the server sent, on stderr and in --json")
    func fieldErrorsAreShown() throws {
        let s3 = try E2E.s3()
        let (server, dir) = try E2E.server(s3, publicPort: nil)
        defer { server.stop() }
        // PROFILE allows 10 MiB: a 12 MiB POST-form upload is refused with fieldErrors.size.
        let (file, _) = try E2E.file(
            12 * Self.mib, in: dir, name: "big.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let cli = try CLIProcess.run(
            Self.base(server) + ["--type", "PROFILE", "--multipart-threshold", "100", "--json", file.path])
        #expect(cli.process.terminationStatus == 4, "\(cli.stderr)")
        #expect(cli.stderr.contains("(size: "), "the field error is printed: \(cli.stderr)")
        let out = try #require(cli.jsonLines.first)
        let fields = try #require(out["fieldErrors"] as? [String: String], "\(out)")
        #expect(fields["size"]?.isEmpty == false)
    }

    @Test("a server without uppy.enabled: an explicit threshold names what it lacks; the default sends one PUT")
    func multipartRoutesMissing() async throws {
        let s3 = try E2E.s3()
        let (server, dir) = try E2E.server(s3, publicPort: nil)
        defer { server.stop() }
        let (file, data) = try E2E.file(
            17 * Self.mib, in: dir, name: "photo.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let explicit = try CLIProcess.run(
            Self.base(server) + ["--multipart-threshold", "1", "--state-dir", dir + "/state", file.path])
        #expect(explicit.process.terminationStatus == 4)
        #expect(explicit.stderr.contains("uppy.enabled"), "\(explicit.stderr)")
        // The default threshold (16 MiB) would send 17 MiB in parts: without the routes, one PUT.
        let fallback = try CLIProcess.run(Self.base(server) + ["--json", "--state-dir", dir + "/state", file.path])
        #expect(fallback.process.terminationStatus == 0, "\(fallback.stderr)")
        #expect(fallback.stderr.contains("sending it in one PUT instead"), "\(fallback.stderr)")
        let out = try #require(fallback.jsonLines.first)
        #expect(out["multipart"] as? Bool == false)
        let record = try await E2E.client(server).image(id: try #require(out["recordId"] as? String))
        #expect(try await E2E.download(try #require(record.url)).1 == data)
    }

    /// Starts a multipart upload whose part PUTs the proxy holds for a while, waits until the state
    /// file shows a part done, then sends `signal`; returns the CLI (ended) and the state it left.
    static func interrupt(
        _ signalNumber: Int32, server: ServerProcess, file: URL, stateDir: String, faults: RecordingProxy
    ) throws -> (CLIProcess, MultipartState) {
        let (cli, state) = try CLIProcess.interrupted(
            base(server) + [
                "--multipart-threshold", "1", "--part-size", "5", "--concurrency", "1", "--state-dir", stateDir,
                "--progress", "none", file.path,
            ], by: signalNumber, stateDir: stateDir, faults: faults)
        return (cli, try #require(state, "no part was recorded: \(cli.stderr)"))
    }

    @Test(
        "Ctrl-C hints at --resume; a bare rerun asks for --resume or --restart and keeps the upload; the resumed rate starts at 0"
    )
    func interruptRerunResume() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: Self.uppy)
        defer {
            server.stop()
            faults.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(
            20 * Self.mib, in: dir, name: "clip.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let stateDir = dir + "/state"
        let (cli, left) = try Self.interrupt(SIGINT, server: server, file: file, stateDir: stateDir, faults: faults)
        #expect(cli.process.terminationReason == .exit && cli.process.terminationStatus == 130, "\(cli.stderr)")
        #expect(cli.stderr.contains("run the same command with --resume"), "\(cli.stderr)")

        let bare = try CLIProcess.run(
            Self.base(server) + ["--multipart-threshold", "1", "--part-size", "5", "--state-dir", stateDir, file.path])
        #expect(bare.process.terminationStatus == 2)
        #expect(bare.stderr.contains("--resume") && bare.stderr.contains("--restart"), "\(bare.stderr)")
        let listed = try await client.listParts(left.upload)
        #expect(listed.count >= left.etags.count, "a bare rerun must not abort the upload")

        let resumed = try CLIProcess.run(
            Self.base(server) + [
                "--multipart-threshold", "1", "--part-size", "5", "--state-dir", stateDir, "--progress", "lines",
                "--resume", "--json", file.path,
            ])
        #expect(resumed.process.terminationStatus == 0, "\(resumed.stderr)")
        let out = try #require(resumed.jsonLines.first)
        #expect(out["uploadId"] as? String == left.upload.uploadId)
        let skipped = try #require(out["partsResumed"] as? Int)
        #expect(skipped >= 1)
        // The first line is drawn before any byte of this run is sent: the parts found done are not a rate.
        let first = try #require(resumed.stderr.split(separator: "\n").first { $0.contains("MiB/s") })
        #expect(first.contains(" 0.0 MiB/s"), "\(first)")
        let record = try await client.image(id: try #require(out["recordId"] as? String))
        #expect(try await E2E.download(try #require(record.url)).1 == data)
    }

    @Test("--restart aborts the waiting upload and sends the file again")
    func restartAbortsTheOldUpload() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: Self.uppy)
        defer {
            server.stop()
            faults.close()
        }
        let client = E2E.client(server)
        let (file, _) = try E2E.file(
            12 * Self.mib, in: dir, name: "again.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let stateDir = dir + "/state"
        let (_, left) = try Self.interrupt(SIGTERM, server: server, file: file, stateDir: stateDir, faults: faults)
        let again = try CLIProcess.run(
            Self.base(server) + [
                "--multipart-threshold", "1", "--part-size", "5", "--state-dir", stateDir, "--restart", "--json",
                file.path,
            ])
        #expect(again.process.terminationStatus == 0, "\(again.stderr)")
        let out = try #require(again.jsonLines.first)
        #expect(out["abortedUploadId"] as? String == left.upload.uploadId)
        #expect(out["uploadId"] as? String != left.upload.uploadId)
        await #expect(throws: PresignClientError.self) { _ = try await client.listParts(left.upload) }
    }

    @Test("a file changed since the interruption: --resume aborts the old upload and sends the new bytes")
    func changedFileAbortsTheOldUpload() async throws {
        let (faults, server, dir) = try E2E.proxiedServer(extra: Self.uppy)
        defer {
            server.stop()
            faults.close()
        }
        let client = E2E.client(server)
        let jpeg = try E2E.fixture("jpeg-baseline-64x48.jpg")
        let (file, _) = try E2E.file(12 * Self.mib, in: dir, name: "edited.jpg", prefix: jpeg)
        let stateDir = dir + "/state"
        let (_, left) = try Self.interrupt(SIGINT, server: server, file: file, stateDir: stateDir, faults: faults)
        // Edited: another size, so the state no longer describes the file.
        let (_, edited) = try E2E.file(11 * Self.mib, in: dir, name: "edited.jpg", prefix: jpeg)
        let resumed = try CLIProcess.run(
            Self.base(server) + [
                "--multipart-threshold", "1", "--part-size", "5", "--state-dir", stateDir, "--resume", "--json",
                file.path,
            ])
        #expect(resumed.process.terminationStatus == 0, "\(resumed.stderr)")
        let out = try #require(resumed.jsonLines.first)
        #expect(out["abortedUploadId"] as? String == left.upload.uploadId)
        #expect(resumed.stderr.contains("changed since its interrupted upload"), "\(resumed.stderr)")
        await #expect(throws: PresignClientError.self) { _ = try await client.listParts(left.upload) }
        let record = try await client.image(id: try #require(out["recordId"] as? String))
        #expect(try await E2E.download(try #require(record.url)).1 == edited)
    }
}
