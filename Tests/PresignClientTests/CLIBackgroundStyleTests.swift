import Foundation
import PresignClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `presign-upload --background-style` against the real server and RGW: the native `/uploads` API
/// end to end, the CLI killed (SIGKILL, no chance to save anything more) mid-upload and rerun: only the
/// parts the server lacks are sent again, counted at the proxy in front of RGW.
@Suite("presign-upload --background-style", .serialized)
struct CLIBackgroundStyleTests {
    @Test("killed with SIGKILL mid-upload, rerun: the parts the server holds are not sent again")
    func killedAndRerun() async throws {
        let (proxy, server, dir) = try E2E.proxiedServer(extra: BackgroundUploaderEndToEndTests.extra)
        defer {
            server.stop()
            proxy.close()
        }
        let client = E2E.client(server)
        let (file, data) = try E2E.file(20 * CLIFirstHourTests.mib, in: dir, name: "clip.mp4")
        let stateDir = dir + "/state"
        let arguments =
            CLIFirstHourTests.base(server) + [
                "--background-style", "--type", "VIDEO", "--part-size", "5", "--concurrency", "1", "--state-dir",
                stateDir, "--progress", "none", "--json", file.path,
            ]
        proxy.inject { _, method in method == "PUT" ? .stall(milliseconds: 500) : nil }
        let cli = try CLIProcess(arguments)
        var saved: BackgroundUploadState?
        while cli.process.isRunning {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: stateDir)) ?? []
            if let name = names.first(where: { $0.hasSuffix(".uploads.json") }),
                let s = BackgroundUploadState.load(URL(fileURLWithPath: stateDir + "/" + name)), !s.sent.isEmpty
            {
                saved = s
                break
            }
            usleep(5_000)
        }
        kill(cli.process.processIdentifier, SIGKILL)
        _ = cli.wait()
        proxy.inject { _, _ in nil }
        let state = try #require(saved, "no part was saved: \(cli.stderr)")
        #expect(state.parts.count == 4)
        let before = BackgroundUploaderEndToEndTests.partPuts(proxy).count

        let rerun = try CLIProcess.run(arguments)
        #expect(rerun.process.terminationStatus == 0, "\(rerun.stderr)")
        let out = try #require(rerun.jsonLines.first)
        #expect(out["backgroundStyle"] as? Bool == true)
        #expect(out["uploadId"] as? String == state.uploadId)
        let again = Array(BackgroundUploaderEndToEndTests.partPuts(proxy).dropFirst(before))
        #expect(Set(again).isDisjoint(with: state.sent), "sent again: \(again), saved as sent: \(state.sent)")
        #expect(out["partsUploaded"] as? Int == again.count)
        #expect((out["partsResumed"] as? Int ?? 0) >= state.sent.count)
        let record = try await client.image(id: try #require(out["recordId"] as? String))
        #expect(record.size == Int64(data.count))
        #expect(try await E2E.download(try #require(record.url)).1 == data)
    }
}
