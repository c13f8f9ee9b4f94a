import Foundation
import PresignClient
import TestSupport
import Testing

/// The library and the CLI against the real presignd binary and a real Ceph RGW, with a loopback
/// recording proxy (or fault proxy) in front of RGW as the server's public endpoint: what the tests
/// assert about storage requests is what really reached it.
@Suite("PresignClient end to end: native routes against the real server and RGW", .serialized)
struct ClientEndToEndTests {
    @Test(
        "GET form (client P): the URL that reaches RGW is byte for byte the URL received; confirm, read, list, delete")
    func getForm() async throws {
        let s3 = try E2E.s3()
        let proxy = try RecordingProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        defer { proxy.close() }
        let (server, _) = try E2E.server(s3, publicPort: proxy.port)
        defer { server.stop() }
        let client = E2E.client(server)
        let png = try E2E.fixture("png-rgb-33x17.png")

        let ticket = try await client.uploadURL(type: "PROFILE", ext: "png")
        #expect(ticket.method == "PUT")
        #expect(ticket.url.hasPrefix("http://127.0.0.1:\(proxy.port)/"))
        #expect(ticket.url.contains("X-Amz-Credential=\(s3.accessKey)%2F"))  // the seed's %2F
        let progress = ProgressLog()
        let put = try await client.upload(png, with: ticket, contentType: "image/png", progress: { progress.add($0) })
        #expect(put.status == 200)
        #expect(put.etag?.isEmpty == false)

        let puts = proxy.requests.filter { $0.method == "PUT" }
        try #require(puts.count == 1)
        #expect(puts[0].target == E2E.target(of: ticket.url))
        #expect(!puts[0].target.contains("%252F"))
        #expect(puts[0].status == 200)
        #expect(puts[0].bodyLength == png.count)
        #expect(progress.values.last?.bytesSent == Int64(png.count))

        let record = try await client.confirm(imageKey: ticket.confirmKey, metadata: ["from": "e2e"])
        #expect(record.size == Int64(png.count))
        #expect(record.type == "PROFILE")
        let fetched = try await client.image(id: record.id)
        #expect(fetched.id == record.id)
        let url = try #require(fetched.url)
        let (status, body) = try await E2E.download(url)
        #expect(status == 200)
        #expect(body == png)
        let page = try await client.images(type: "PROFILE", limit: 10)
        #expect(page.items.contains { $0.id == record.id })
        try await client.deleteImage(id: record.id)
        do {
            _ = try await client.image(id: record.id)
            Issue.record("a deleted record was still served")
        } catch let e as PresignClientError {
            #expect(e.status == 404)
            #expect(e.serverCode == "IMAGE_NOT_FOUND")
        }
    }

    @Test("POST form (client B): a file PUT from disk with the signed headers, byte-identical URL, confirmed")
    func postForm() async throws {
        let s3 = try E2E.s3()
        let proxy = try RecordingProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        defer { proxy.close() }
        let (server, dir) = try E2E.server(s3, publicPort: proxy.port)
        defer { server.stop() }
        let client = E2E.client(server)
        let jpeg = try E2E.fixture("jpeg-baseline-64x48.jpg")
        let file = URL(fileURLWithPath: dir + "/photo.jpg")
        try jpeg.write(to: file)

        let ticket = try await client.uploadURL(contentType: "image/jpeg", size: Int64(jpeg.count))
        #expect(ticket.imageKey != nil)
        #expect(ticket.headers["Content-Type"] == "image/jpeg")
        let progress = ProgressLog()
        _ = try await client.upload(fileAt: file, with: ticket, progress: { progress.add($0) })
        let put = try #require(proxy.requests.first { $0.method == "PUT" })
        #expect(put.target == E2E.target(of: ticket.url))
        #expect(put.headerLines.contains { $0.lowercased() == "content-type: image/jpeg" })
        #expect(put.headerLines.contains { $0.lowercased() == "content-length: \(jpeg.count)" })
        #expect(put.status == 200)
        #expect(progress.values.last == TransferProgress(bytesSent: Int64(jpeg.count), totalBytes: Int64(jpeg.count)))
        let record = try await client.confirm(imageKey: ticket.confirmKey)
        #expect(record.imageKey == ticket.imageKey!.lowercased())
        #expect(record.contentType == "image/jpeg")
        let (status, body) = try await E2E.download(try #require(record.url))
        #expect(status == 200)
        #expect(body == jpeg)
    }

    @Test("typed errors: the server's code and status; the storage's XML code for a refused PUT")
    func typedErrors() async throws {
        let s3 = try E2E.s3()
        let (server, _) = try E2E.server(s3, publicPort: nil)
        defer { server.stop() }
        let client = E2E.client(server)
        do {
            _ = try await client.uploadURL(type: "PROFILE", ext: "exe")
            Issue.record("an unknown extension was accepted")
        } catch let e as PresignClientError {
            #expect(e.status == 422)
            #expect(e.serverCode == "4220")
        }
        // A header other than the signed one: RGW refuses the signature.
        var ticket = try await client.uploadURL(contentType: "image/jpeg")
        ticket.headers["Content-Type"] = "image/png"
        do {
            _ = try await client.upload(Data([1, 2, 3]), with: ticket)
            Issue.record("storage accepted a PUT with another content type than signed")
        } catch let e as PresignClientError {
            #expect(e.status == 403)
            #expect(e.storageCode == "SignatureDoesNotMatch")
        }
        // Nothing uploaded: confirming is the server's 404 IMAGE_NOT_UPLOADED.
        do {
            _ = try await client.confirm(imageKey: ticket.confirmKey)
            Issue.record("a key with no object was confirmed")
        } catch let e as PresignClientError {
            #expect(e.status == 404)
            #expect(e.serverCode == "IMAGE_NOT_UPLOADED")
        }
    }
}

@Suite("presign-upload end to end: exit codes, --json, the progress bar", .serialized)
struct CLIEndToEndTests {
    @Test("--json prints one object per file (key, recordId, bytes, seconds); the records exist")
    func jsonOutput() async throws {
        let s3 = try E2E.s3()
        let (server, dir) = try E2E.server(s3, publicPort: nil)
        defer { server.stop() }
        let a = URL(fileURLWithPath: dir + "/a.jpg")
        let b = URL(fileURLWithPath: dir + "/b.png")
        try E2E.fixture("jpeg-exif-40x30.jpg").write(to: a)
        try E2E.fixture("png-rgba-21x13.png").write(to: b)
        let run = try CLIProcess.run([
            "--server", "http://127.0.0.1:\(server.port)", "--user-id", "cli7", "--json", a.path, b.path,
        ])
        #expect(run.process.terminationStatus == 0, "stderr: \(run.stderr)")
        let objects = run.jsonLines
        try #require(objects.count == 2, "stdout: \(run.stdout)")
        let client = E2E.client(server, user: "cli7")
        for (object, file) in zip(objects, [a, b]) {
            #expect(object["file"] as? String == file.path)
            #expect((object["bytes"] as? Int) == (try Data(contentsOf: file)).count)
            #expect((object["seconds"] as? Double).map { $0 >= 0 } == true)
            let id = try #require(object["recordId"] as? String)
            let record = try await client.image(id: id)
            #expect(record.key == object["key"] as? String)
        }
        // GET form, --type
        let get = try CLIProcess.run([
            "--server", "http://127.0.0.1:\(server.port)", "--user-id", "cli7", "--json", "--form", "get",
            "--type", "FEED", a.path,
        ])
        #expect(get.process.terminationStatus == 0, "stderr: \(get.stderr)")
        #expect((get.jsonLines.first?["key"] as? String)?.contains("feed") == true, "\(get.stdout)")
    }

    @Test("exit codes: 2 usage, 3 network, 4 server refusal, 5 storage refusal (with its XML code)")
    func exitCodes() async throws {
        let s3 = try E2E.s3()
        let faults = try FaultProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        defer { faults.close() }
        let (server, dir) = try E2E.server(s3, publicPort: faults.port)
        defer { server.stop() }
        let file = URL(fileURLWithPath: dir + "/a.jpg")
        try E2E.fixture("jpeg-baseline-64x48.jpg").write(to: file)
        let base = ["--server", "http://127.0.0.1:\(server.port)", "--user-id", "42", "--json"]

        let usage = try CLIProcess.run([file.path])
        #expect(usage.process.terminationStatus == 2)
        #expect(usage.stderr.contains("--server"))
        #expect(try CLIProcess.run(["--server", "http://x", "--bogus", file.path]).process.terminationStatus == 2)
        let help = try CLIProcess.run(["--help"])
        #expect(help.process.terminationStatus == 0)
        #expect(help.stdout.contains("Examples:"))

        // A port nothing listens on (the proxy's, closed below after use would race; use a fresh one).
        let dead = try FaultProxy(upstreamHost: "127.0.0.1", upstreamPort: 9)
        let deadPort = dead.port
        dead.close()
        let network = try CLIProcess.run(["--server", "http://127.0.0.1:\(deadPort)", file.path])
        #expect(network.process.terminationStatus == 3, "stderr: \(network.stderr)")

        let refused = try CLIProcess.run(base + ["--form", "get", "--type", "NOPE", file.path])
        #expect(refused.process.terminationStatus == 4, "stderr: \(refused.stderr)")
        #expect(refused.jsonLines.first?["status"] as? Int == 422)
        #expect(refused.jsonLines.first?["serverCode"] as? String == "4220")

        faults.setRules([FaultProxy.Rule(.method("PUT"), .status(403, code: "AccessDenied"))])
        let storage = try CLIProcess.run(base + [file.path])
        #expect(storage.process.terminationStatus == 5, "stderr: \(storage.stderr)")
        #expect(storage.jsonLines.first?["storageCode"] as? String == "AccessDenied")
        #expect(storage.stderr.contains("AccessDenied"))
        #expect(faults.faultCount == 1)
    }

    @Test("on a terminal (a pty) the bar is redrawn and ends at 100 %; piped, plain lines end at 100 %")
    func progressBar() throws {
        let s3 = try E2E.s3()
        let (server, dir) = try E2E.server(s3, publicPort: nil)
        defer { server.stop() }
        // A 6 MiB IMAGE upload (POST form): long enough for several redraws.
        let (file, _) = try E2E.file(
            6 * 1_048_576, in: dir, name: "big.jpg", prefix: try E2E.fixture("jpeg-baseline-64x48.jpg"))
        let command = [E2E.cli.path, "--server", "http://127.0.0.1:\(server.port)", "--user-id", "42", file.path]
        // util-linux script(1) runs the command on a new pty and copies what it writes to its stdout.
        let pty = try CLIProcess.run(
            ["-q", "-e", "-c", command.map { "'\($0)'" }.joined(separator: " "), "/dev/null"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(pty.process.terminationStatus == 0, "\(pty.stdout) \(pty.stderr)")
        let screen = pty.stdout
        #expect(screen.contains("\r\u{1B}[K"), "\(screen.debugDescription)")
        #expect(screen.contains("[########################] 100%"), "\(screen.debugDescription)")
        let lastDraw = screen.components(separatedBy: "\r\u{1B}[K").last ?? ""
        #expect(lastDraw.contains("100%"))
        #expect(lastDraw.contains("6.0/6.0 MiB"))

        let piped = try CLIProcess.run(Array(command.dropFirst()))
        #expect(piped.process.terminationStatus == 0)
        let lines = piped.stderr.split(separator: "\n")
        #expect(!piped.stderr.contains("\r"))
        #expect(lines.last?.contains("100%") == true, "\(piped.stderr)")
    }
}

extension CLIProcess {
    static func run(_ arguments: [String], executable: URL) throws -> CLIProcess {
        let p = try CLIProcess(arguments, executable: executable)
        _ = p.wait()
        return p
    }
}
