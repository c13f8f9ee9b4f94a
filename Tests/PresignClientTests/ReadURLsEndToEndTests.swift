import Foundation
import PresignClient
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's read URLs against the real server and RGW: `readURL(for:)`, `readURLs(for:)`, the
/// 302 route through `contentRequest(for:)`, `download(id:to:)`, and `presign-upload get`.
@Suite("PresignClient read URLs end to end", .serialized)
struct ReadURLsEndToEndTests {
    /// A server, a client of user 42 and two of its records (a JPEG and a PNG) with their bytes.
    static func start() async throws -> (ServerProcess, PresignClient, [(ImageRecord, Data)], String) {
        let s3 = try E2E.s3()
        let (server, dir) = try E2E.server(s3, publicPort: nil)
        let client = E2E.client(server)
        var records: [(ImageRecord, Data)] = []
        for (name, type) in [("jpeg-baseline-64x48.jpg", "image/jpeg"), ("png-rgba-21x13.png", "image/png")] {
            let bytes = try E2E.fixture(name)
            let file = URL(fileURLWithPath: dir + "/" + name)
            try bytes.write(to: file)
            let record = try await client.uploadAndConfirm(
                fileAt: file, contentType: type, metadata: ["filename": "mine-" + name])
            records.append((record, bytes))
        }
        return (server, client, records, dir)
    }

    /// Whether `a` and `b` are one URL, or were signed in different windows (a read that crossed a
    /// window's boundary between the two answers; the in-process tests move the clock across it).
    static func sameWindowSameURL(_ a: String?, _ b: String?) -> Bool {
        func date(_ url: String?) -> String? {
            guard let url, let range = url.range(of: "X-Amz-Date=") else { return nil }
            return String(url[range.upperBound...].prefix(16))
        }
        return a == b || (date(a) != nil && date(b) != nil && date(a) != date(b))
    }

    @Test("readURL, readURLs and the 302 route answer the record's stable URL, which serves its bytes")
    func readURLs() async throws {
        let (server, client, records, _) = try await Self.start()
        defer { server.stop() }
        let (jpeg, jpegBytes) = records[0]
        let read = try await client.readURL(for: jpeg.id)
        #expect(Self.sameWindowSameURL(read.url, jpeg.url))
        #expect(read.contentType == "image/jpeg" && read.disposition == "inline")
        #expect(try #require(read.expiresAtDate).timeIntervalSinceNow > 3500)
        #expect(Self.sameWindowSameURL(try await client.readURL(for: jpeg.id).url, read.url))
        let (status, body) = try await E2E.download(read.url)
        #expect(status == 200 && body == jpegBytes)

        let download = try await client.readURL(for: jpeg.id, disposition: .attachment)
        #expect(download.disposition == "attachment" && download.url != read.url)

        let unknown = UUID().uuidString.lowercased()
        let ids = records.map(\.0.id) + [unknown, jpeg.id.uppercased()]
        let batch = try await client.readURLs(for: ids)
        #expect(Set(batch.urls.keys) == Set(records.map(\.0.id)))
        #expect(batch.missing == [unknown])
        #expect(Self.sameWindowSameURL(batch.urls[jpeg.id]?.url, read.url))
        // Over one request's limit: the client splits the ids.
        let many = records.map(\.0.id) + (0..<150).map { _ in UUID().uuidString.lowercased() }
        let split = try await client.readURLs(for: many)
        #expect(split.urls.count == 2 && split.missing.count == 150)

        // An image view given the fixed app URL: it follows the 302 to the bytes.
        let request = try client.contentRequest(for: records[1].0.id)
        #expect(request.url?.absoluteString.hasSuffix("/images/\(records[1].0.id)/content") == true)
        let (png, response) = try await URLSession(configuration: .ephemeral).data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(png == records[1].1)
        // With a bearer token (not checked in dev mode): URLSession keeps it on the redirect, and storage
        // refuses a signed URL that also has an Authorization header; StorageRedirectDelegate drops it.
        let bearer = PresignClient(
            configuration: .init(
                serverURL: URL(string: "http://127.0.0.1:\(server.port)")!, bearerToken: "a.b.c",
                headers: ["X-User-Id": "42"]))
        let session = URLSession(
            configuration: .ephemeral, delegate: StorageRedirectDelegate(dropping: ["X-User-Id"]), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (viaBearer, bearerResponse) = try await session.data(for: try bearer.contentRequest(for: records[1].0.id))
        #expect(
            (bearerResponse as? HTTPURLResponse)?.statusCode == 200, "\(String(decoding: viaBearer, as: UTF8.self))")
        #expect(viaBearer == records[1].1)

        do {
            _ = try await client.readURL(for: unknown)
            Issue.record("an unknown id answered")
        } catch let e as PresignClientError {
            #expect(e.status == 404 && e.serverCode == "IMAGE_NOT_FOUND")
        }
        let other = E2E.client(server, user: "43")
        await #expect(throws: PresignClientError.self) { try await other.readURL(for: jpeg.id) }
        #expect(try await other.readURLs(for: [jpeg.id]).missing == [jpeg.id])
    }

    @Test("StorageRedirectDelegate drops the API's credentials on a redirect to another host only")
    func redirectDelegate() throws {
        let delegate = StorageRedirectDelegate(dropping: ["X-User-Id"])
        var api = URLRequest(url: URL(string: "https://api.example.com/images/1/content")!)
        api.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        api.setValue("k", forHTTPHeaderField: "X-Api-Key")
        api.setValue("42", forHTTPHeaderField: "X-User-Id")
        api.setValue("a", forHTTPHeaderField: "Accept-Language")
        var toStorage = api
        toStorage.url = URL(string: "https://s3.example.com/b/k.jpg?X-Amz-Signature=x")
        let stripped = delegate.redirect(toStorage, from: api)
        #expect(stripped.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(stripped.value(forHTTPHeaderField: "X-Api-Key") == nil)
        #expect(stripped.value(forHTTPHeaderField: "X-User-Id") == nil)
        #expect(stripped.value(forHTTPHeaderField: "Accept-Language") == "a")
        var sameHost = api
        sameHost.url = URL(string: "https://api.example.com/images/2/content")
        #expect(delegate.redirect(sameHost, from: api).value(forHTTPHeaderField: "Authorization") == "Bearer t")
        var otherPort = api
        otherPort.url = URL(string: "https://api.example.com:8443/x")
        #expect(delegate.redirect(otherPort, from: api).value(forHTTPHeaderField: "Authorization") == nil)
    }

    @Test("download(id:to:) and presign-upload get write the record's bytes to a file")
    func download() async throws {
        let (server, client, records, dir) = try await Self.start()
        defer { server.stop() }
        let (png, pngBytes) = records[1]
        let file = URL(fileURLWithPath: dir + "/out.png")
        let (bytes, contentType) = try await client.download(id: png.id, to: file)
        #expect(bytes == Int64(pngBytes.count) && contentType == "image/png")
        #expect(try Data(contentsOf: file) == pngBytes)

        let base = ["get", "--server", "http://127.0.0.1:\(server.port)", "--user-id", "42"]
        let cliFile = dir + "/cli.jpg"
        let got = try CLIProcess.run(base + [records[0].0.id, "-o", cliFile, "--json"])
        #expect(got.process.terminationStatus == 0, "stderr: \(got.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: cliFile)) == records[0].1)
        let out = try #require(got.jsonLines.first)
        #expect(out["bytes"] as? Int == records[0].1.count && out["contentType"] as? String == "image/jpeg")

        let missing = try CLIProcess.run(base + [UUID().uuidString, "-o", dir + "/none", "--json"])
        #expect(missing.process.terminationStatus == 4)
        #expect(missing.jsonLines.first?["serverCode"] as? String == "IMAGE_NOT_FOUND")
        #expect(!FileManager.default.fileExists(atPath: dir + "/none"))
        #expect(try CLIProcess.run(base + [png.id]).process.terminationStatus == 2)  // no -o
        #expect(try CLIProcess.run(["get", "--help"]).stdout.contains("presign-upload get"))
    }
}
