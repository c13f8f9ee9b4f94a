import Testing

@testable import SigV4

/// Endpoint parsing: the storage providers presignd is deployed against (AWS, RGW, others), ports, and
/// what is refused.
struct EndpointTests {
    /// URL, scheme, host, port, authority.
    static let valid: [(String, String, String, Int?, String)] = [
        ("http://127.0.0.1:9000", "http", "127.0.0.1", 9000, "127.0.0.1:9000"),
        (
            "https://s3.ap-northeast-2.amazonaws.com", "https", "s3.ap-northeast-2.amazonaws.com", nil,
            "s3.ap-northeast-2.amazonaws.com"
        ),
        (
            "https://kr.object.ncloudstorage.com/", "https", "kr.object.ncloudstorage.com", nil,
            "kr.object.ncloudstorage.com"
        ),
        (
            "https://0123abcd.r2.cloudflarestorage.com", "https", "0123abcd.r2.cloudflarestorage.com", nil,
            "0123abcd.r2.cloudflarestorage.com"
        ),
        ("HTTPS://S3.Example.COM:443", "https", "s3.example.com", nil, "s3.example.com"),
        ("http://minio:80", "http", "minio", nil, "minio"),
        ("http://s3_rgw:7480", "http", "s3_rgw", 7480, "s3_rgw:7480"),
        ("https://localhost:8443", "https", "localhost", 8443, "localhost:8443"),
        ("http://[::1]:9000", "http", "[::1]", 9000, "[::1]:9000"),
        ("http://[fd00::a:1]", "http", "[fd00::a:1]", nil, "[fd00::a:1]"),
    ]

    @Test("valid endpoints", arguments: valid)
    func parses(url: String, scheme: String, host: String, port: Int?, authority: String) throws {
        let endpoint = try Endpoint(parsing: url)
        #expect(endpoint.scheme == scheme)
        #expect(endpoint.host == host)
        #expect(endpoint.port == port)
        #expect(endpoint.authority == authority)
    }

    @Test(
        "refused endpoints",
        arguments: [
            "", "s3.amazonaws.com", "ftp://host", "https://", "https://host/path", "https://host?x=1", "https://host#f",
            "https://user@host", "https://host:0", "https://host:65536", "https://host:", "https://host:80a",
            "https://ho st", "https://host..com", "https://.host", "http://[::1", "http://[zz::1]", "http://[::1]x",
        ])
    func refuses(url: String) {
        #expect(throws: SigV4Error.self) { try Endpoint(parsing: url) }
    }

    @Test("IP literals are recognised (they cannot be virtual-hosted)")
    func ipAddresses() throws {
        #expect(try Endpoint(parsing: "http://127.0.0.1:9000").isIPAddress)
        #expect(try Endpoint(parsing: "http://[::1]:9000").isIPAddress)
        #expect(try !Endpoint(parsing: "https://s3.amazonaws.com").isIPAddress)
        #expect(try !Endpoint(parsing: "http://1.2.3.4.example").isIPAddress)
    }
}
