import AppTestSupport
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
    static func put(_ url: String, port: Int, contentType: String, body: [UInt8]) async throws -> Int {
        let rest = try #require(url.range(of: "://")).upperBound
        let slash = try #require(url[rest...].firstIndex(of: "/"))
        let host = String(url[rest..<slash])
        let target = String(url[slash...])
        return try await SocketTarget(port: port).exchange(
            Array(
                "PUT \(target) HTTP/1.1\r\nHost: \(host)\r\nContent-Type: \(contentType)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
                    .utf8) + body
        ).status
    }

    @Test(
        "issue, upload and confirm with the addressing style, client P always path-style",
        arguments: [("virtual", true), ("path", false)])
    func flow(addressing: String, virtualHosted: Bool) async throws {
        let s3 = try TestEnvironment.s3()
        let port = s3.hostPort.1
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: s3,
            extra: [
                "PRESIGN_S3_ENDPOINT": "http://localhost:\(port)", "PRESIGN_S3_ADDRESSING": addressing,
                "PRESIGN_S3_CONNECT_HOST": "127.0.0.1",
            ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }

        let uuid = UUID().uuidString
        let r = try await ClientBFlowTests.post(server, #"{"contentType":"image/jpeg","imageKey":"\#(uuid)"}"#)
        #expect(r.status == 200, "\(r.text)")
        let url = try #require(try JSONValue(parsing: r.body)["signedUrl"]?.stringValue)
        let key = uuid.lowercased()
        let expected =
            virtualHosted
            ? "http://\(s3.bucket).localhost:\(port)/\(key)?" : "http://localhost:\(port)/\(s3.bucket)/\(key)?"
        #expect(url.hasPrefix(expected), "\(url)")
        let jpeg: [UInt8] = TestImages.jpeg(width: 4, height: 3, tail: Array(uuid.utf8))
        #expect(try await Self.put(url, port: port, contentType: "image/png", body: jpeg) == 403, "the signature holds")
        #expect(try await Self.put(url, port: port, contentType: "image/jpeg", body: jpeg) == 200)
        // The server's own signed HEAD goes the same way (bucket.localhost through s3.connectHost).
        let (status, code) = try await StorageFaultTests.confirm(server, uuid)
        #expect(status == 201, "\(code ?? "")")

        // Client P's URL is path-style whatever s3.addressing says.
        let p = try await CredentialsChainTests.get(server, "/presigned-url?type=PROFILE&ext=jpg")
        let pURL = try #require(try JSONValue(parsing: p.body)["presignedUrl"]?.stringValue)
        #expect(pURL.hasPrefix("http://localhost:\(port)/\(s3.bucket)/delete/profile/9/"), "\(pURL)")
        let rebuilt = try #require(ClientPFlowTests.rebuildLikeClientP(pURL))
        #expect(
            try await Self.put(
                "http://localhost:\(port)" + rebuilt.path + "?" + rebuilt.query, port: port, contentType: "image/jpeg",
                body: jpeg) == 200)
        #expect(try await CredentialsChainTests.get(server, "/readyz").status == 200)
    }
}
