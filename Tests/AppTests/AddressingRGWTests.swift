import Foundation
import JSON
import TestSupport
import Testing

/// Path-style and virtual-hosted addressing end to end against RGW, which serves `Host:
/// <bucket>.localhost` virtual-hosted (scripts/start-s3.sh sets `rgw_dns_name = localhost`). The
/// name does not resolve, so the server's own calls use `s3.connectHost = 127.0.0.1` and the test
/// connects to 127.0.0.1 with the URL's host in `Host`, as `curl --connect-to` would.
@Suite("Addressing: path-style and virtual-hosted URLs against RGW", .serialized)
struct AddressingRGWTests {
    /// PUTs `body` to `url` through 127.0.0.1 with the URL's own host as `Host`.
    static func put(_ url: String, port: Int, contentType: String, body: [UInt8]) throws -> Int {
        let rest = try #require(url.range(of: "://")).upperBound
        let slash = try #require(url[rest...].firstIndex(of: "/"))
        let host = String(url[rest..<slash])
        let target = String(url[slash...])
        let c = try RawClient(port: port, host: "127.0.0.1")
        c.send(
            Array(
                "PUT \(target) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                    .utf8) + body)
        return c.readResponse()?.status ?? -1
    }

    @Test(
        "issue, upload and confirm with the addressing style, client P always path-style",
        arguments: [("virtual", true), ("path", false)])
    func flow(addressing: String, virtualHosted: Bool) throws {
        let s3 = try TestEnvironment.s3()
        let port = s3.hostPort.1
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_S3_ENDPOINT": "http://localhost:\(port)", "PRESIGN_S3_ADDRESSING": addressing,
                "PRESIGN_S3_CONNECT_HOST": "127.0.0.1",
            ])
        let server = try ServerProcess(environment: env)
        defer { server.stop() }

        let uuid = UUID().uuidString
        let r = try ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200, "\(r.text)")
        let url = try #require(try JSONValue(parsing: r.body)["signedUrl"]?.stringValue)
        let key = uuid.lowercased()
        let expected =
            virtualHosted
            ? "http://\(s3.bucket).localhost:\(port)/\(key)?" : "http://localhost:\(port)/\(s3.bucket)/\(key)?"
        #expect(url.hasPrefix(expected), "\(url)")
        let jpeg: [UInt8] = TestImages.jpeg(width: 4, height: 3, tail: Array(uuid.utf8))
        #expect(try Self.put(url, port: port, contentType: "image/png", body: jpeg) == 403, "the signature holds")
        #expect(try Self.put(url, port: port, contentType: "image/jpeg", body: jpeg) == 200)
        // The server's own signed HEAD goes the same way (bucket.localhost through s3.connectHost).
        let (status, code) = try StorageFaultTests.confirm(server, uuid)
        #expect(status == 201, "\(code ?? "")")

        // Client P's URL is path-style whatever s3.addressing says.
        let p = try CredentialsBinaryTests.get(server, "/presigned-url?type=PROFILE&ext=jpg")
        let pURL = try #require(try JSONValue(parsing: p.body)["presignedUrl"]?.stringValue)
        #expect(pURL.hasPrefix("http://localhost:\(port)/\(s3.bucket)/delete/profile/9/"), "\(pURL)")
        let rebuilt = try #require(ClientPFlowTests.rebuildLikeClientP(pURL))
        #expect(
            try Self.put(
                "http://localhost:\(port)" + rebuilt.path + "?" + rebuilt.query, port: port, contentType: "image/jpeg",
                body: jpeg) == 200)
        #expect(try CredentialsBinaryTests.get(server, "/readyz").status == 200)
    }

    @Test("--check-config shows a preset's effective values and says client P's routes are path-style")
    func checkConfigNotes() throws {
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil, extra: ["PRESIGN_S3_PROVIDER": "aws", "PRESIGN_S3_REGION": "ap-northeast-2"])
        var noEndpoint = env
        noEndpoint["PRESIGN_S3_ENDPOINT"] = nil
        let check = try ServerProcess(environment: noEndpoint, arguments: ["--check-config"], expectListening: false)
        #expect(check.waitForExit() == 0)
        let dump = try JSONValue(parsing: Array(check.stdout.utf8))
        #expect(dump["s3"]?["endpoint"]?.stringValue == "https://s3.ap-northeast-2.amazonaws.com")
        #expect(dump["s3"]?["addressing"]?.stringValue == "virtual")
        #expect(dump["s3"]?["provider"]?.stringValue == "aws")
        #expect(
            check.stderr.contains("presignd: note: s3.provider aws: endpoint https://s3.ap-northeast-2.amazonaws.com"))
        #expect(
            check.stderr.contains(
                "presignd: note: GET /presigned-url and GET /v1/storage/presigned-url serve client P's contract: their URLs are always path-style"
            ), "\(check.stderr)")
    }
}
