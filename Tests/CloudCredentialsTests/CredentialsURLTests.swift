import HTTPClient
import Testing

@testable import CloudCredentials

/// Endpoint URLs of the remote providers.
@Suite struct CredentialsURLTests {
    /// Parses or fails the test.
    func parse(_ text: String) throws -> CredentialsURL {
        try CredentialsURL.parse(text, provider: "test", name: "URL")
    }

    @Test func splitsURLs() throws {
        let plain = try parse("http://169.254.170.2/v2/credentials/abc?x=1#frag")
        #expect(plain.address == ServerAddress(usesTLS: false, host: "169.254.170.2", port: 80))
        #expect(plain.target == "/v2/credentials/abc?x=1")
        let tls = try parse("HTTPS://STS.us-east-1.amazonaws.com")
        #expect(tls.address == ServerAddress(usesTLS: true, host: "sts.us-east-1.amazonaws.com", port: 443))
        #expect(tls.target == "/")
        let ipv6 = try parse("http://[fd00:ec2::23]:8080/v1/credentials")
        #expect(ipv6.address == ServerAddress(usesTLS: false, host: "[fd00:ec2::23]", port: 8080))
        #expect(try parse("http://127.0.0.1:1234?q").target == "/?q")
        #expect(
            try parse("http://127.0.0.1:1234/base/").appending(path: "/latest/api/token") == "/base/latest/api/token")
    }

    @Test(arguments: [
        "ftp://host/", "host/path", "http://", "http://user:pass@host/", "http://host:0/", "http://host:65536/",
        "http://host:/", "http://host:12a/", "http://[::1/", "http://[::1]x/", "http://ho st/", "http://host/a b",
        "http://[zz::1]/", "http://host/\u{e9}",
    ])
    func refusesBadURLs(text: String) {
        #expect(throws: CredentialsError.self) { try CredentialsURL.parse(text, provider: "test", name: "URL") }
    }

    @Test func errorsNameTheSetting() {
        #expect(
            throws: CredentialsError.invalidConfiguration(
                provider: "p", reason: "X must start with http:// or https://")
        ) {
            try CredentialsURL.parse("169.254.170.2", provider: "p", name: "X")
        }
    }
}
